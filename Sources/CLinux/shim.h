#pragma once
#include <sys/timerfd.h>
