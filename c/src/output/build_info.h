/* SPDX-License-Identifier: BSD-3-Clause */
/* build_info.h — what CMake tells the binary about its own build (meta.json "build", "tool").
 * The fallbacks let the output files compile in unit tests built without CMake. */
#ifndef MM_BUILD_INFO_H
#define MM_BUILD_INFO_H
#ifdef MM_HAVE_BUILD_REVISION_H
#include "build_revision.h" /* generated in the build folder: CMakeLists.txt */
#endif
#ifndef MM_GIT_REVISION
#define MM_GIT_REVISION "unknown"
#endif
#ifndef MM_COMPILER
#define MM_COMPILER "unknown"
#endif
#ifndef MM_COMPILE_FLAGS
#define MM_COMPILE_FLAGS "unknown"
#endif
#ifndef MM_MPICC
#define MM_MPICC "unknown"
#endif
#endif
