#pragma once
#include <pulse/pulseaudio.h>
#include <pulse/glib-mainloop.h>
