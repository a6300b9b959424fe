#pragma once
#include <sys/timerfd.h>
#include <spawn.h>

// glibc defines POSIX_SPAWN_SETSID only under _GNU_SOURCE, which Swift's Glibc module does not set.
#ifndef POSIX_SPAWN_SETSID
#define POSIX_SPAWN_SETSID 0x80
#endif
static const short reveille_posix_spawn_setsid = POSIX_SPAWN_SETSID;
