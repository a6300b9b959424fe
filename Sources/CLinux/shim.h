#pragma once
#include <sys/timerfd.h>
#include <spawn.h>

// glibc defines POSIX_SPAWN_SETSID only under _GNU_SOURCE, which Swift's Glibc module does not set.
#ifndef POSIX_SPAWN_SETSID
#define POSIX_SPAWN_SETSID 0x80
#endif
static const short reveille_posix_spawn_setsid = POSIX_SPAWN_SETSID;
// Likewise posix_spawn_file_actions_addclosefrom_np (glibc 2.34): a child gets no descriptor above stderr.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);

#include <sys/ioctl.h>
#include <unistd.h>

// ioctl(2) is variadic, which Swift cannot call: the terminal's width (TIOCGWINSZ), 0 if unknown.
static inline int reveille_terminal_columns(int fd) {
    struct winsize size;
    return ioctl(fd, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

#include <malloc.h>

// glibc gives each thread that allocates its own malloc arena (reserved 64 MiB each, partly
// touched and kept); the agent's few threads mostly sleep, so one arena serves them all.
static inline void reveille_use_one_malloc_arena(void) { mallopt(M_ARENA_MAX, 1); }

#include <sys/syscall.h>

// pidfd_open(2) (Linux 5.3), which glibc 2.36 does not wrap: a descriptor that polls readable
// once process `pid` has exited. -1 (errno set) where the kernel has none.
static inline int reveille_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

#include <fcntl.h>
// O_PATH (Linux 2.6.39) is defined only under _GNU_SOURCE, which Swift's Glibc module does not set.
#ifndef O_PATH
#define O_PATH 010000000
#endif
static const int reveille_o_path = O_PATH;
