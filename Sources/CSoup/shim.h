#pragma once
#include <libsoup/soup.h>
