#pragma once
#include <libical/ical.h>

// libical is opened with dlopen by ICalParser, when a calendar is first read, so that a
// program that reads none (`reveille list`, the agent without sync) neither maps it nor ICU
// and libstdc++ behind it. These are the types of the functions it looks up, taken from
// libical's own declarations (typeof names a function without referring to its symbol).
typedef __typeof__(icalerror_set_errors_are_fatal) *ReveilleICalSetErrorsAreFatal;
typedef __typeof__(icalparser_parse_string) *ReveilleICalParseString;
typedef __typeof__(icalcomponent_free) *ReveilleICalComponentFree;
typedef __typeof__(icalcomponent_isa) *ReveilleICalComponentIsa;
typedef __typeof__(icalcomponent_kind_to_string) *ReveilleICalComponentKindToString;
typedef __typeof__(icalcomponent_get_first_property) *ReveilleICalComponentGetFirstProperty;
typedef __typeof__(icalcomponent_get_next_property) *ReveilleICalComponentGetNextProperty;
typedef __typeof__(icalcomponent_get_first_component) *ReveilleICalComponentGetFirstComponent;
typedef __typeof__(icalcomponent_get_next_component) *ReveilleICalComponentGetNextComponent;
typedef __typeof__(icalproperty_get_property_name_r) *ReveilleICalPropertyGetPropertyName;
typedef __typeof__(icalproperty_get_value) *ReveilleICalPropertyGetValue;
typedef __typeof__(icalproperty_get_value_as_string_r) *ReveilleICalPropertyGetValueAsString;
typedef __typeof__(icalproperty_get_first_parameter) *ReveilleICalPropertyGetFirstParameter;
typedef __typeof__(icalproperty_get_next_parameter) *ReveilleICalPropertyGetNextParameter;
typedef __typeof__(icalparameter_as_ical_string_r) *ReveilleICalParameterAsString;
typedef __typeof__(icalvalue_isa) *ReveilleICalValueIsa;
typedef __typeof__(icalvalue_get_text) *ReveilleICalValueGetText;
typedef __typeof__(icalvalue_get_x) *ReveilleICalValueGetX;
typedef __typeof__(icalmemory_free_buffer) *ReveilleICalMemoryFreeBuffer;
