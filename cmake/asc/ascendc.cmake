# CANN's ascendc.cmake (include(${ASCENDC_CMAKE_DIR}/ascendc.cmake), the kernel-invocation sample trees) for
# ascendsim: ascendc_library(<target> STATIC|SHARED <sources>) builds the kernels with bisheng (the ASC language)
# and generates, for every kernel, the header aclrtlaunch_<kernel>.h that declares aclrtlaunch_<kernel>(blockDim,
# stream, args...) and ACLRT_LAUNCH_KERNEL(kernel) (global-memory parameters as void*); programs linking the target
# see the headers. docs/ascendc.md.
get_filename_component(_ASCENDC_TOOLKIT "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
include("${_ASCENDC_TOOLKIT}/share/cmake/ASC/ASCConfig.cmake")
enable_language(ASC)

function(ascendc_library target type)
  set(sources ${ARGN})
  set_source_files_properties(${sources} PROPERTIES LANGUAGE ASC)
  add_library(${target} ${type} ${sources})
  set(headers "${CMAKE_CURRENT_BINARY_DIR}/${target}_launch_headers")
  set(absolute)
  foreach(source IN LISTS sources)
    get_filename_component(path "${source}" ABSOLUTE)
    list(APPEND absolute "${path}")
  endforeach()
  execute_process(COMMAND "${CMAKE_ASC_COMPILER}" "--ascendsim-launch-headers=${headers}" ${absolute}
                  RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "ascendc_library(${target}): generating the aclrtlaunch headers failed")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${absolute})
  target_include_directories(${target} PUBLIC "${headers}")
endfunction()

function(ascendc_compile_definitions target scope)
  target_compile_definitions(${target} ${scope} ${ARGN})
endfunction()

function(ascendc_include_directories target scope)
  target_include_directories(${target} ${scope} ${ARGN})
endfunction()

function(ascendc_compile_options target scope)
  target_compile_options(${target} ${scope} ${ARGN})
endfunction()
