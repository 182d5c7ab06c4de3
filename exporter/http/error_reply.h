#pragma once

struct mg_connection;

namespace podwait {

// civetweb's http_error callback: answers an error civetweb raises itself (a malformed request,
// a request timeout) with a plain "HTTP/1.1 <status> <text>" reply and closes the connection.
// civetweb 1.15's own error page builds its status line from the request's version field, which
// for a request line of four tokens ("GET / HTTP/1.1 x") holds the rest of the request, header
// lines included. Returns 0 (handled).
int SendErrorReply(mg_connection* conn, int status, const char* message);

}  // namespace podwait
