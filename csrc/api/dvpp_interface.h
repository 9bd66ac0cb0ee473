// acl/ops/acl_dvpp.h for the library's own files: CANN's header refuses to be included unless the program
// defines ENABLE_DVPP_INTERFACE, which every file that declares or defines a DVPP function does through here.
#pragma once
#ifndef ENABLE_DVPP_INTERFACE
#define ENABLE_DVPP_INTERFACE
#endif
#include "acl/ops/acl_dvpp.h"
