// The bot's decisions. This is the file to change: decide() gets the seat's whole
// observation and every legal action, and returns one of the legal actions.
//
// The starter plays simply, in every ruleset (classic, strict, all-trumps,
// two-player) and option (declarations, contree):
// - bidding: takes a suit when it holds its jack and at least three cards of it
//   (counting the turned card it would pick up); never all-trumps, no-trumps or
//   schmeiss; otherwise passes;
// - play: leads its strongest card; follows with the lowest card that wins the
//   trick, otherwise the cheapest; always announces belote;
// - declarations: the choice listing the most cards; the two-player exchange: yes;
//   a schmeiss: refused; contree calls: pass; naming a trump: its longest suit.
#include "strategy.h"

#include <tuple>

namespace {

// ---------------------------------------------------------------------------
// Cards (RULES.md §2): the order within a suit and the points depend on the trump mode.
// ---------------------------------------------------------------------------

// Ranks are numbered 7..14 in natural order (7 8 9 10 J Q K A); these tables give,
// per rank, the strength within the suit (higher wins the trick) and the points.
//                                    7  8  9 10  J  Q  K  A
const int kTrumpStrength[8]     = {0, 1, 6, 4, 7, 2, 3, 5};   // J 9 A 10 K Q 8 7
const int kPlainStrength[8]     = {0, 1, 2, 6, 3, 4, 5, 7};   // A 10 K Q J 9 8 7
const int kTrumpPoints[8]       = {0, 0, 14, 10, 20, 3, 4, 11};
const int kPlainPoints[8]       = {0, 0, 0, 10, 2, 3, 4, 11};
const int kAllTrumpsPoints[8]   = {0, 0, 9, 5, 13, 2, 3, 6};
const int kNoTrumpsPoints[8]    = {0, 0, 0, 10, 2, 3, 4, 19};

int index_of(const pb::Card& c) { return c.rank() - pb::RANK_SEVEN; }

// Whether the card follows the trump order: its suit is trump, or every suit is.
bool is_trump(const pb::Observation& obs, const pb::Card& c) {
  return obs.trump_mode() == pb::TRUMP_MODE_ALL_TRUMPS ||
         (obs.trump_mode() == pb::TRUMP_MODE_SUIT && c.suit() == obs.trump_suit());
}

int strength(const pb::Observation& obs, const pb::Card& c) {
  return (is_trump(obs, c) ? kTrumpStrength : kPlainStrength)[index_of(c)];
}

int points(const pb::Observation& obs, const pb::Card& c) {
  switch (obs.trump_mode()) {
    case pb::TRUMP_MODE_ALL_TRUMPS: return kAllTrumpsPoints[index_of(c)];
    case pb::TRUMP_MODE_NO_TRUMPS: return kNoTrumpsPoints[index_of(c)];
    default: return (is_trump(obs, c) ? kTrumpPoints : kPlainPoints)[index_of(c)];
  }
}

// Whether card a, played now, beats card b, the card winning the trick: a higher
// card of b's suit, or a trump on a card that is not trump (suit mode).
bool beats(const pb::Observation& obs, const pb::Card& a, const pb::Card& b) {
  if (a.suit() == b.suit()) return strength(obs, a) > strength(obs, b);
  return obs.trump_mode() == pb::TRUMP_MODE_SUIT && a.suit() == obs.trump_suit();
}

int count_suit(const pb::Observation& obs, pb::Suit suit) {
  int n = 0;
  for (const pb::Card& c : obs.hand_cards()) n += c.suit() == suit;
  return n;
}

bool holds(const pb::Observation& obs, pb::Suit suit, pb::Rank rank) {
  for (const pb::Card& c : obs.hand_cards())
    if (c.suit() == suit && c.rank() == rank) return true;
  return false;
}

// ---------------------------------------------------------------------------
// One function per phase (docs/PROTOCOL.md §4). Each returns one of the legal actions.
// ---------------------------------------------------------------------------

// The first legal action for which want() is true, else the first legal action.
template <typename Want>
const pb::Action& first(const pb::DecideRequest& request, Want want) {
  for (const pb::Action& a : request.legal_actions())
    if (want(a)) return a;
  return request.legal_actions(0);
}

const pb::Action& bid(const pb::DecideRequest& request) {
  const pb::Observation& obs = request.observation();
  for (const pb::Action& a : request.legal_actions()) {
    if (a.bid().kind() != pb::BID_KIND_TAKE) continue;
    pb::Suit suit = a.bid().suit();
    int length = count_suit(obs, suit) + (obs.turned_card().suit() == suit ? 1 : 0);
    if (holds(obs, suit, pb::RANK_JACK) && length >= 3) return a;
  }
  return first(request, [](const pb::Action& a) { return a.bid().kind() == pb::BID_KIND_PASS; });
}

const pb::Action& play(const pb::DecideRequest& request) {
  const pb::Observation& obs = request.observation();
  const pb::Trick& trick = obs.current_trick();
  const pb::Card* winning = nullptr;  // the card now winning the trick, none when we lead
  if (trick.has_winner())
    for (const pb::PlayedCard& p : trick.cards())
      if (p.seat() == trick.winner()) winning = &p.card();

  const pb::Action* chosen = nullptr;
  for (const pb::Action& a : request.legal_actions()) {
    const pb::Card& c = a.play().card();
    if (chosen == nullptr) { chosen = &a; continue; }
    const pb::Card& best = chosen->play().card();
    bool better;
    if (winning == nullptr) {  // we lead: our strongest card
      better = std::make_tuple(strength(obs, c), points(obs, c)) >
               std::make_tuple(strength(obs, best), points(obs, best));
    } else if (beats(obs, c, *winning) != beats(obs, best, *winning)) {  // a winner before a loser
      better = beats(obs, c, *winning);
    } else if (beats(obs, c, *winning)) {  // both win: the lowest, a card of the suit before a trump
      better = std::make_tuple(is_trump(obs, c), strength(obs, c)) <
               std::make_tuple(is_trump(obs, best), strength(obs, best));
    } else {  // neither wins: the cheapest
      better = std::make_tuple(points(obs, c), strength(obs, c)) <
               std::make_tuple(points(obs, best), strength(obs, best));
    }
    if (better) chosen = &a;
  }
  // The same card with belote announced, when that is listed too (+20 points).
  for (const pb::Action& a : request.legal_actions())
    if (a.play().belote() && a.play().card().suit() == chosen->play().card().suit() &&
        a.play().card().rank() == chosen->play().card().rank())
      return a;
  return *chosen;
}

const pb::Action& declare(const pb::DecideRequest& request) {
  const pb::Action* chosen = &request.legal_actions(0);
  auto cards = [](const pb::Action& a) {
    int n = 0;
    for (const pb::Declaration& d : a.declaration().declarations()) n += d.cards_size();
    return n;
  };
  for (const pb::Action& a : request.legal_actions())
    if (cards(a) > cards(*chosen)) chosen = &a;
  return *chosen;
}

const pb::Action& name_trump(const pb::DecideRequest& request) {
  const pb::Action* chosen = &request.legal_actions(0);
  for (const pb::Action& a : request.legal_actions())
    if (count_suit(request.observation(), a.name_trump().suit()) >
        count_suit(request.observation(), chosen->name_trump().suit()))
      chosen = &a;
  return *chosen;
}

}  // namespace

pb::Action decide(const pb::DecideRequest& request) {
  switch (request.observation().phase()) {
    case pb::PHASE_BIDDING:
      return bid(request);
    case pb::PHASE_PLAY:
      return play(request);
    case pb::PHASE_DECLARATION:
      return declare(request);
    case pb::PHASE_NAME_TRUMP:
      return name_trump(request);
    case pb::PHASE_SCHMEISS_ANSWER:
      return first(request, [](const pb::Action& a) {
        return a.schmeiss_answer().kind() == pb::SCHMEISS_ANSWER_KIND_REFUSE; });
    case pb::PHASE_EXCHANGE:
      return first(request, [](const pb::Action& a) { return a.exchange().exchange(); });
    case pb::PHASE_CONTREE:
      return first(request, [](const pb::Action& a) {
        return a.call().kind() == pb::CONTREE_CALL_KIND_PASS; });
    default:  // a phase added after this bot was written: the first legal action is always allowed
      return request.legal_actions(0);
  }
}
