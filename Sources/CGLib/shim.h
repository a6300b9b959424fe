#pragma once
#include <gio/gio.h>
#include <glib-unix.h>
#include <gio/gunixfdlist.h>
#include <gio/gdesktopappinfo.h>
