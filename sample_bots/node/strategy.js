// The bot's decisions. This is the file to change: decide() gets the seat's whole
// observation and every legal action, and returns one of the legal actions.
//
// Messages are plain objects with the .proto's field names (hand_cards,
// legal_actions), enum values as their names ("PHASE_PLAY", "SUIT_HEARTS") and,
// for a oneof, the name of the field that is set ("bid", "play": action.kind).
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
"use strict";

// ---------------------------------------------------------------------------
// Cards (RULES.md §2): the order within a suit and the points depend on the trump mode.
// ---------------------------------------------------------------------------

const RANKS = ["RANK_SEVEN", "RANK_EIGHT", "RANK_NINE", "RANK_TEN", "RANK_JACK", "RANK_QUEEN", "RANK_KING", "RANK_ACE"];
// Per rank, in the natural order of RANKS: strength within the suit (higher wins the trick), points.
//                          7  8  9 10  J  Q  K  A
const TRUMP_STRENGTH     = [0, 1, 6, 4, 7, 2, 3, 5];   // J 9 A 10 K Q 8 7
const PLAIN_STRENGTH     = [0, 1, 2, 6, 3, 4, 5, 7];   // A 10 K Q J 9 8 7
const TRUMP_POINTS       = [0, 0, 14, 10, 20, 3, 4, 11];
const PLAIN_POINTS       = [0, 0, 0, 10, 2, 3, 4, 11];
const ALL_TRUMPS_POINTS  = [0, 0, 9, 5, 13, 2, 3, 6];
const NO_TRUMPS_POINTS   = [0, 0, 0, 10, 2, 3, 4, 19];

const rankIndex = (card) => RANKS.indexOf(card.rank);

// Whether the card follows the trump order: its suit is trump, or every suit is.
function isTrump(obs, card) {
  return obs.trump_mode === "TRUMP_MODE_ALL_TRUMPS" ||
         (obs.trump_mode === "TRUMP_MODE_SUIT" && card.suit === obs.trump_suit);
}

function strength(obs, card) {
  return (isTrump(obs, card) ? TRUMP_STRENGTH : PLAIN_STRENGTH)[rankIndex(card)];
}

function points(obs, card) {
  if (obs.trump_mode === "TRUMP_MODE_ALL_TRUMPS") return ALL_TRUMPS_POINTS[rankIndex(card)];
  if (obs.trump_mode === "TRUMP_MODE_NO_TRUMPS") return NO_TRUMPS_POINTS[rankIndex(card)];
  return (isTrump(obs, card) ? TRUMP_POINTS : PLAIN_POINTS)[rankIndex(card)];
}

// Whether card a, played now, beats card b, the card winning the trick: a higher
// card of b's suit, or a trump on a card that is not trump (suit mode).
function beats(obs, a, b) {
  if (a.suit === b.suit) return strength(obs, a) > strength(obs, b);
  return obs.trump_mode === "TRUMP_MODE_SUIT" && a.suit === obs.trump_suit;
}

const countSuit = (obs, suit) => obs.hand_cards.filter((c) => c.suit === suit).length;
const holds = (obs, suit, rank) => obs.hand_cards.some((c) => c.suit === suit && c.rank === rank);

// Compare two arrays of numbers in order (like tuples): negative when a < b.
function compare(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

// ---------------------------------------------------------------------------
// One function per phase (docs/PROTOCOL.md §4). Each returns one of the legal actions.
// ---------------------------------------------------------------------------

// The first legal action for which want() is true, else the first legal action.
const first = (request, want) => request.legal_actions.find(want) || request.legal_actions[0];

function bid(request) {
  const obs = request.observation;
  for (const a of request.legal_actions) {
    if (a.bid.kind !== "BID_KIND_TAKE") continue;
    const length = countSuit(obs, a.bid.suit) + (obs.turned_card.suit === a.bid.suit ? 1 : 0);
    if (holds(obs, a.bid.suit, "RANK_JACK") && length >= 3) return a;
  }
  return first(request, (a) => a.bid.kind === "BID_KIND_PASS");
}

function play(request) {
  const obs = request.observation;
  const trick = obs.current_trick;
  // the card now winning the trick; none when we lead
  const winning = trick && trick.winner !== undefined && trick.winner !== null
    ? trick.cards.find((p) => p.seat === trick.winner).card : null;
  // the order of preference: smaller first
  const key = (card) => {
    if (winning === null) return [-strength(obs, card), -points(obs, card)];  // we lead: our strongest card
    if (beats(obs, card, winning)) return [0, isTrump(obs, card) ? 1 : 0, strength(obs, card)];  // the lowest winner
    return [1, points(obs, card), strength(obs, card)];  // otherwise the cheapest
  };
  let chosen = request.legal_actions[0];
  for (const a of request.legal_actions) if (compare(key(a.play.card), key(chosen.play.card)) < 0) chosen = a;
  // the same card with belote announced, when that is listed too (+20 points)
  const c = chosen.play.card;
  return request.legal_actions.find((a) => a.play.belote && a.play.card.suit === c.suit && a.play.card.rank === c.rank)
    || chosen;
}

function declare(request) {
  const cards = (a) => a.declaration.declarations.reduce((n, d) => n + d.cards.length, 0);
  return request.legal_actions.reduce((best, a) => (cards(a) > cards(best) ? a : best));
}

function nameTrump(request) {
  const obs = request.observation;
  return request.legal_actions.reduce(
    (best, a) => (countSuit(obs, a.name_trump.suit) > countSuit(obs, best.name_trump.suit) ? a : best));
}

/** One of request.legal_actions, unchanged: the bot's answer to one decision. */
function decide(request) {
  switch (request.observation.phase) {
    case "PHASE_BIDDING": return bid(request);
    case "PHASE_PLAY": return play(request);
    case "PHASE_DECLARATION": return declare(request);
    case "PHASE_NAME_TRUMP": return nameTrump(request);
    case "PHASE_SCHMEISS_ANSWER": return first(request, (a) => a.schmeiss_answer.kind === "SCHMEISS_ANSWER_KIND_REFUSE");
    case "PHASE_EXCHANGE": return first(request, (a) => a.exchange.exchange);
    case "PHASE_CONTREE": return first(request, (a) => a.call.kind === "CONTREE_CALL_KIND_PASS");
    default: return request.legal_actions[0];  // a phase added after this bot was written: always allowed
  }
}

module.exports = { decide };
