/*
 * The source of CANN's other library names — libacl_op_compiler.so, libacl_cblas.so, libacl_dvpp.so — which
 * programs link beside libascendcl.so (msame: -lascendcl -lacl_op_compiler -lacl_cblas -lacl_dvpp). ascendsim has
 * one runtime: libascendcl.so defines every function of acl_op_compiler.h, ops/acl_cblas.h and ops/acl_dvpp.h,
 * and each of these libraries has no code of its own, only its SONAME and a dependency (DT_NEEDED) on
 * libascendcl.so (CMakeLists.txt). A program linking them with -lascendcl resolves every symbol in
 * libascendcl.so; a program built against CANN (NEEDED libacl_cblas.so) loads them and, through them, the one
 * runtime. ISO C wants a declaration in a translation unit; this one defines nothing.
 */
typedef int ascendsim_forwarding_library;
