# find_package(ascendcl): the emulated AscendCL runtime shipped inside the ascendsim Python package.
# Provides the imported target ascendcl::ascendcl and ascendcl_INCLUDE_DIRS / ascendcl_LIBRARIES, and
# ascendcl::acl_op_compiler, ascendcl::acl_cblas, ascendcl::acl_dvpp for CANN's other library names (they forward
# to libascendcl.so: link them with ascendcl::ascendcl).
get_filename_component(_ascendcl_root "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
foreach(_ascendcl_lib ascendcl acl_op_compiler acl_cblas acl_dvpp)
  if(NOT TARGET ascendcl::${_ascendcl_lib})
    add_library(ascendcl::${_ascendcl_lib} SHARED IMPORTED)
    set_target_properties(ascendcl::${_ascendcl_lib} PROPERTIES
      IMPORTED_LOCATION "${_ascendcl_root}/lib64/lib${_ascendcl_lib}.so"
      IMPORTED_SONAME "lib${_ascendcl_lib}.so"
      INTERFACE_INCLUDE_DIRECTORIES "${_ascendcl_root}/include")
  endif()
endforeach()
set(ascendcl_INCLUDE_DIRS "${_ascendcl_root}/include")
set(ascendcl_LIBRARIES ascendcl::ascendcl)
set(ascendcl_FOUND TRUE)
unset(_ascendcl_lib)
unset(_ascendcl_root)
