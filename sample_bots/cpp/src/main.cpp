// The bot's server: the belote.bot.v1 protocol over gRPC (docs/PROTOCOL.md).
// Nothing here needs changing to write a bot: the decisions are in strategy.cpp.
//
//   ./bot --listen /tmp/mybot/bot.sock     (or BELOTE_BOT_LISTEN; host:port works too)
//
// prints "BELOTE-BOT READY unix:/tmp/mybot/bot.sock" once it listens, serves until
// SIGTERM or Ctrl-C, and reads its name, version and author from ./bot.toml.
#include <csignal>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <unistd.h>

#include <grpcpp/grpcpp.h>

#include "belote/bot/v1/bot.grpc.pb.h"
#include "strategy.h"

namespace {

// The manifest's name, version, author and rulesets: one `key = "text"` (or
// `key = ["a", "b"]`) per line, which is all bot.toml needs here.
struct Manifest {
  std::string name, version, author;
  std::vector<std::string> rulesets;
};

Manifest read_manifest(const std::string& path) {
  Manifest m;
  std::ifstream in(path);
  const std::regex line(R"(^\s*(\w+)\s*=\s*(.*?)\s*(#.*)?$)"), text(R"re("([^"]*)")re");
  for (std::string s; std::getline(in, s);) {
    std::smatch kv;
    if (!std::regex_match(s, kv, line)) continue;
    std::vector<std::string> values;
    std::string rest = kv[2];
    for (std::sregex_iterator i(rest.begin(), rest.end(), text), end; i != end; ++i) values.push_back((*i)[1]);
    if (values.empty()) continue;
    if (kv[1] == "name") m.name = values[0];
    if (kv[1] == "version") m.version = values[0];
    if (kv[1] == "author") m.author = values[0];
    if (kv[1] == "rulesets") m.rulesets = values;
  }
  return m;
}

class BotService final : public pb::BotService::Service {
 public:
  explicit BotService(Manifest manifest) : manifest_(std::move(manifest)) {}

  grpc::Status GetBotInfo(grpc::ServerContext*, const pb::GetBotInfoRequest*,
                          pb::GetBotInfoResponse* info) override {
    info->set_name(manifest_.name);
    info->set_version(manifest_.version);
    info->set_author(manifest_.author);
    for (const std::string& r : manifest_.rulesets) info->add_rulesets(r);
    info->set_protocol_version("1.0");
    return grpc::Status::OK;
  }

  // Notifications: this bot keeps nothing between decisions.
  grpc::Status StartMatch(grpc::ServerContext*, const pb::StartMatchRequest*, pb::StartMatchResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status EndMatch(grpc::ServerContext*, const pb::EndMatchRequest*, pb::EndMatchResponse*) override {
    return grpc::Status::OK;
  }

  grpc::Status Decide(grpc::ServerContext*, const pb::DecideRequest* request, pb::DecideResponse* response) override {
    return answer(*request, response);
  }

  // The same decisions over one stream: one response per request, in order.
  grpc::Status DecideStream(grpc::ServerContext*,
                            grpc::ServerReaderWriter<pb::DecideStreamResponse, pb::DecideStreamRequest>* stream)
      override {
    pb::DecideStreamRequest request;
    while (stream->Read(&request)) {
      pb::DecideStreamResponse response;
      grpc::Status status = answer(request.request(), response.mutable_response());
      if (!status.ok()) return status;  // ends the stream: a fault for this decision
      if (!stream->Write(response)) break;
    }
    return grpc::Status::OK;
  }

 private:
  static grpc::Status answer(const pb::DecideRequest& request, pb::DecideResponse* response) {
    try {
      *response->mutable_action() = decide(request);
      return grpc::Status::OK;
    } catch (const std::exception& e) {
      std::cerr << "decide failed: " << e.what() << std::endl;
      return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
    }
  }

  Manifest manifest_;
};

// SIGTERM (the referee ends the bot) and Ctrl-C: leave at once. A graceful
// server->Shutdown() would join gRPC's threads, and the sandbox's seccomp filter
// refuses the futex a waiting pthread_join uses (docs/PROTOCOL.md §2).
extern "C" void leave(int) { _exit(0); }

}  // namespace

int main(int argc, char** argv) {
  std::string listen = std::getenv("BELOTE_BOT_LISTEN") ? std::getenv("BELOTE_BOT_LISTEN") : "";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--listen") listen = argv[i + 1];
    // --seed N / BELOTE_BOT_SEED: a seed for a bot that draws random numbers (this one does not)
  }
  if (listen.empty()) {
    std::cerr << "usage: ./bot --listen PATH|HOST:PORT (or set BELOTE_BOT_LISTEN)" << std::endl;
    return 2;
  }
  // A path is a Unix socket; host:port (127.0.0.1:0 picks a free port) for runs by hand.
  std::string target = listen.find('/') != std::string::npos && listen.rfind("unix:", 0) != 0 ? "unix:" + listen
                                                                                               : listen;
  std::signal(SIGTERM, leave);
  std::signal(SIGINT, leave);

  BotService service(read_manifest("bot.toml"));
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(target, grpc::InsecureServerCredentials(), &port);
  builder.SetMaxReceiveMessageSize(1 << 20);  // an observation is a few KiB
  // No limit on idle polling threads, so gRPC never retires one: a retired thread is
  // joined by the next one to retire, and a join that has to wait is refused by the
  // sandbox (see leave() above). The bot keeps the few threads its calls need.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, -1);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server) {
    std::cerr << "cannot listen on " << target << std::endl;
    return 1;
  }
  if (target.rfind("unix:", 0) != 0 && target.size() > 2 && target.substr(target.size() - 2) == ":0")
    target = target.substr(0, target.size() - 1) + std::to_string(port);
  std::cout << "BELOTE-BOT READY " << target << std::endl;  // std::endl flushes: the referee waits for this line
  server->Wait();
  return 0;
}
