#pragma once
// libsoup 3 is opened with dlopen by HTTPClient, when sync first sends a request, so that the
// agent without sync maps neither it nor what it brings (GnuTLS through GIO's TLS module,
// sqlite3, libpsl, brotli, nghttp2, Kerberos). Its headers are named from the include folder
// itself, as no pkg-config flags are given (they would link the library): the headers libsoup
// installs in <includedir>/libsoup-3.0 include each other by relative path.
#include <libsoup-3.0/libsoup/soup-session.h>
#include <libsoup-3.0/libsoup/soup-message.h>
#include <libsoup-3.0/libsoup/soup-message-headers.h>

// The types of the functions HTTPClient looks up, taken from libsoup's own declarations
// (typeof names a function without referring to its symbol).
typedef __typeof__(soup_session_new) *ReveilleSoupSessionNew;
typedef __typeof__(soup_session_set_timeout) *ReveilleSoupSessionSetTimeout;
typedef __typeof__(soup_session_set_idle_timeout) *ReveilleSoupSessionSetIdleTimeout;
typedef __typeof__(soup_session_send_async) *ReveilleSoupSessionSendAsync;
typedef __typeof__(soup_session_send_finish) *ReveilleSoupSessionSendFinish;
typedef __typeof__(soup_message_new) *ReveilleSoupMessageNew;
typedef __typeof__(soup_message_get_request_headers) *ReveilleSoupMessageGetRequestHeaders;
typedef __typeof__(soup_message_get_response_headers) *ReveilleSoupMessageGetResponseHeaders;
typedef __typeof__(soup_message_set_request_body_from_bytes) *ReveilleSoupMessageSetRequestBodyFromBytes;
typedef __typeof__(soup_message_get_status) *ReveilleSoupMessageGetStatus;
typedef __typeof__(soup_message_headers_append) *ReveilleSoupMessageHeadersAppend;
typedef __typeof__(soup_message_headers_get_one) *ReveilleSoupMessageHeadersGetOne;
typedef __typeof__(soup_message_headers_get_content_length) *ReveilleSoupMessageHeadersGetContentLength;
