# Fails the build when an object of kernel variant VARIANT defines a symbol outside its namespace
# ascendsim::kernels::isa_VARIANT: the linker keeps one copy of such a symbol for the whole library, and an
# AVX-512 copy of an inline function would then run on CPUs without AVX-512 (csrc/kernels/simd/simd.h).
# cmake -DNM=nm -DVARIANT=avx2 -DOBJECTS="a.o|b.o" -P check_isa_symbols.cmake
string(REPLACE "|" ";" OBJECTS "${OBJECTS}")
foreach(object IN LISTS OBJECTS)
  execute_process(COMMAND ${NM} --defined-only --extern-only -C ${object} OUTPUT_VARIABLE symbols
                  RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "nm failed on ${object}")
  endif()
  string(REPLACE "\n" ";" symbols "${symbols}")
  foreach(line IN LISTS symbols)
    if(line STREQUAL "" OR line MATCHES " ascendsim::kernels::isa_${VARIANT}::")
      continue()
    endif()
    # A sanitizer build's own data holds no code: ASan's one-definition-rule marker of each global, and the
    # reference to the C++ personality routine its cleanup paths need.
    if(line MATCHES " __odr_asan[._]" OR line MATCHES " DW\\.ref\\.__gxx_personality_v0$")
      continue()
    endif()
    message(FATAL_ERROR "${object} (kernel variant ${VARIANT}) defines a symbol outside namespace "
                        "ascendsim::kernels::isa_${VARIANT}: ${line}")
  endforeach()
endforeach()
