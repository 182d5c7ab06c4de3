#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace podwait::sim {

// One parsed HTTP/1.1 request.
struct Request {
  std::string method;
  std::string path;                                // percent-decoded path without the query
  std::string query;                               // raw query string
  std::multimap<std::string, std::string> params;  // decoded query parameters
  std::map<std::string, std::string> headers;      // lower-case names
  std::string body;
  int remote_port = 0;

  bool Has(const std::string& name) const { return params.count(name) > 0; }
  std::string Param(const std::string& name, const std::string& fallback = "") const;
  std::string Header(const std::string& lower_name) const;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

// The response side of one connection. Not thread-safe: used by the handler thread only. Every
// write reports whether the peer is still there, so long streams notice a client that left.
class Responder {
 public:
  explicit Responder(int fd) : fd_(fd) {}
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // A complete response with Content-Length.
  bool Send(int status, std::string_view content_type, std::string_view body,
            const Headers& extra = {});
  // Starts a chunked response; then WriteChunk() any number of times and EndChunked().
  bool BeginChunked(int status, std::string_view content_type, const Headers& extra = {});
  bool WriteChunk(std::string_view data);
  bool EndChunked();
  // Resets the connection (RST) without a proper end: the client sees a broken transfer.
  void Abort();
  // Closes the connection after the handler returns, without writing anything more.
  void CloseWithoutResponse();
  // True when the peer has closed its side (checked without blocking).
  bool PeerGone() const;

  bool responded() const { return responded_; }
  bool closing() const { return close_; }
  bool aborted() const { return aborted_; }
  void set_keep_alive(bool keep) { close_ = close_ || !keep; }

 private:
  bool WriteAll(std::string_view data);
  int fd_;
  bool responded_ = false;
  bool chunked_open_ = false;
  bool close_ = false;
  bool aborted_ = false;
};

// A small thread-per-connection HTTP/1.1 server with keep-alive. Handlers run on the connection's
// thread and may block (watch streams). Thread-safe Start/Stop.
class HttpServer {
 public:
  using Handler = std::function<void(const Request&, Responder&)>;

  HttpServer() = default;
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port (port 0: any free port). Returns false with *error set on failure.
  bool Listen(const std::string& host, int port, std::string* error);
  int port() const { return port_; }
  void Start(Handler handler);
  // Stops accepting, shuts every open connection down and joins the threads.
  void Stop();
  bool stopping() const { return stopping_.load(); }

 private:
  struct Conn {
    int fd = -1;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  void AcceptLoop();
  void ServeConnection(Conn* conn, int remote_port);
  void ReapFinished();

  int listen_fd_ = -1;
  int port_ = 0;
  Handler handler_;
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::vector<std::unique_ptr<Conn>> conns_;
};

// Percent-decoding for paths and query parameters ('+' is a space only in queries).
std::string UrlDecode(std::string_view text, bool plus_is_space);
std::multimap<std::string, std::string> ParseQuery(std::string_view query);
std::string StatusText(int status);

}  // namespace podwait::sim
