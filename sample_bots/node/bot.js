// The bot's server: the belote.bot.v1 protocol over gRPC (docs/PROTOCOL.md).
// Nothing here needs changing to write a bot: the decisions are in strategy.js.
//
//   node bot.js --listen /tmp/mybot/bot.sock     (or BELOTE_BOT_LISTEN; host:port works too)
//
// prints "BELOTE-BOT READY unix:/tmp/mybot/bot.sock" once it listens, serves until
// SIGTERM or Ctrl-C, and reads its name, version and author from ./bot.toml.
"use strict";

const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const { decide } = require("./strategy");

const definition = protoLoader.loadSync(path.join(__dirname, "proto/belote/bot/v1/bot.proto"), {
  keepCase: true,  // field names as in the .proto: hand_cards, legal_actions
  enums: String,   // enum values by name: "PHASE_PLAY"
  defaults: true,  // every field present, with its default value when unset
  oneofs: true,    // a oneof's name tells which field is set: action.kind === "play"
});
const pb = grpc.loadPackageDefinition(definition).belote.bot.v1;

// The manifest's name, version, author and rulesets: one `key = "text"` (or
// `key = ["a", "b"]`) per line, which is all bot.toml needs here.
function readManifest(file) {
  const manifest = {};
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    const kv = /^\s*(\w+)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    const values = [...kv[2].replace(/#[^"]*$/, "").matchAll(/"([^"]*)"/g)].map((m) => m[1]);
    if (values.length) manifest[kv[1]] = kv[1] === "rulesets" ? values : values[0];
  }
  return manifest;
}

const manifest = readManifest(path.join(__dirname, "bot.toml"));

const service = {
  GetBotInfo(call, callback) {
    callback(null, {
      name: manifest.name, version: manifest.version, author: manifest.author,
      rulesets: manifest.rulesets || [], protocol_version: "1.0",
    });
  },
  // Notifications: this bot keeps nothing between decisions.
  StartMatch(call, callback) { callback(null, {}); },
  EndMatch(call, callback) { callback(null, {}); },
  Decide(call, callback) {
    try {
      callback(null, { action: decide(call.request) });
    } catch (e) {
      console.error("decide failed:", e);
      callback({ code: grpc.status.INTERNAL, details: String(e) });  // a fault for this decision
    }
  },
  // The same decisions over one stream: one response per request, in order.
  DecideStream(call) {
    call.on("data", (message) => {
      try {
        call.write({ response: { action: decide(message.request) } });
      } catch (e) {
        console.error("decide failed:", e);
        call.destroy({ code: grpc.status.INTERNAL, details: String(e) });  // ends the stream: a fault
      }
    });
    call.on("end", () => call.end());
  },
};

function main() {
  const args = process.argv.slice(2);
  const flag = args.indexOf("--listen");
  const listen = flag >= 0 ? args[flag + 1] : process.env.BELOTE_BOT_LISTEN;
  // --seed N / BELOTE_BOT_SEED: a seed for a bot that draws random numbers (this one does not)
  if (!listen) {
    console.error("usage: node bot.js --listen PATH|HOST:PORT (or set BELOTE_BOT_LISTEN)");
    process.exit(2);
  }
  // A path is a Unix socket; host:port (127.0.0.1:0 picks a free port) for runs by hand.
  const target = listen.includes("/") && !listen.startsWith("unix:") ? `unix:${listen}` : listen;
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1 << 20 });  // an observation is a few KiB
  server.addService(pb.BotService.service, service);
  server.bindAsync(target, grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) {
      console.error(`cannot listen on ${target}: ${error.message}`);
      process.exit(1);
    }
    const shown = target.startsWith("unix:") ? target : target.replace(/:0$/, `:${port}`);
    process.stdout.write(`BELOTE-BOT READY ${shown}\n`);  // the referee waits for this line
  });
  // SIGTERM (the referee ends the bot) and Ctrl-C end the process at once, by their
  // default action: no handler here. process.exit() would join Node's own threads, a
  // wait the sandbox's seccomp filter refuses (Node then aborts, "The futex facility
  // returned an unexpected error code").
}

main();
