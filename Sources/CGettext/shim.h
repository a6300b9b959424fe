#pragma once
// gettext is part of glibc: <libintl.h>, which Swift's Glibc module does not include.
#include <libintl.h>
