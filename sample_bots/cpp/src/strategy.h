// The bot's decisions: the one function a bot author changes (strategy.cpp).
#pragma once

#include "belote/bot/v1/bot.pb.h"

namespace pb = belote::bot::v1;

// One of request.legal_actions(), unchanged: the bot's answer to one decision.
// Everything the seat may know is in request.observation() (docs/PROTOCOL.md §5);
// the phase says what is asked (§4). Throwing answers the call with an error
// status, which the referee counts as a fault.
pb::Action decide(const pb::DecideRequest& request);
