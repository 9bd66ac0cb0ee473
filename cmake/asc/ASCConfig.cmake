# find_package(ASC): the CMake language ASC of CANN's sample trees (project(x LANGUAGES CXX ASC),
# add_executable(x main.asc)), compiled by ascendsim's bisheng. Call it before project(), as the samples do: it puts
# this directory's language modules (CMakeDetermineASCCompiler.cmake ...) on CMAKE_MODULE_PATH and names the
# compiler. docs/ascendc.md.
get_filename_component(_ASC_TOOLKIT "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}")
if(NOT CMAKE_ASC_COMPILER)
  set(CMAKE_ASC_COMPILER "${_ASC_TOOLKIT}/compiler/ccec_compiler/bin/bisheng" CACHE FILEPATH "the Ascend C compiler")
endif()
set(ASC_FOUND TRUE)
set(ASC_INCLUDE_DIRS "${_ASC_TOOLKIT}/include")
