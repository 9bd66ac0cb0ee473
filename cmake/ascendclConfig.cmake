# find_package(ascendcl): the emulated AscendCL runtime shipped inside the ascendsim Python package.
# Provides the imported target ascendcl::ascendcl and ascendcl_INCLUDE_DIRS / ascendcl_LIBRARIES.
get_filename_component(_ascendcl_root "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET ascendcl::ascendcl)
  add_library(ascendcl::ascendcl SHARED IMPORTED)
  set_target_properties(ascendcl::ascendcl PROPERTIES
    IMPORTED_LOCATION "${_ascendcl_root}/lib64/libascendcl.so"
    IMPORTED_SONAME "libascendcl.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_ascendcl_root}/include")
endif()
set(ascendcl_INCLUDE_DIRS "${_ascendcl_root}/include")
set(ascendcl_LIBRARIES ascendcl::ascendcl)
set(ascendcl_FOUND TRUE)
unset(_ascendcl_root)
