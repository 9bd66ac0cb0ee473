# The ASC language, step 4: bisheng is checked by building the user's targets; no separate probe.
set(CMAKE_ASC_COMPILER_WORKS 1 CACHE INTERNAL "")
