#include "exporter/http/error_reply.h"

#include <civetweb.h>

#include <string>

namespace podwait {

int SendErrorReply(mg_connection* conn, int status, const char* message) {
  // Only the status and its text: the message may quote the request.
  (void)message;
  const std::string body =
      "Error " + std::to_string(status) + ": " + mg_get_response_code_text(conn, status) + "\n";
  mg_printf(conn,
            "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
            "%zu\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
            status, mg_get_response_code_text(conn, status), body.size());
  mg_write(conn, body.data(), body.size());
  return 0;
}

}  // namespace podwait
