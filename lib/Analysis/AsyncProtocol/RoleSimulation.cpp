//===- RoleSimulation.cpp - Roles run against a model of the mbarriers ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the roles' traces concurrently against a model of the mbarrier
// hardware (PTX ISA, "Parallel Synchronization and Communication
// Instructions: mbarrier"):
//
//  - Barriers. A barrier has a phase, the arrivals the phase still waits for
//    (its init count at each phase) and a transaction count; the phase
//    completes when both reach zero. A parity wait returns once the phase of
//    that parity has completed, i.e. while the current phase's parity
//    differs: a fresh barrier is in phase 0, so a wait for parity 1 returns
//    at once (the phase before it counts as complete). Bulk copies and TMA
//    loads deliver their bytes when issued. Clusters are taken as symmetric:
//    a multicast load delivers its box once per CTA of its mask to this
//    CTA's barrier, and a remote arrive of a peer arrives here. A role's
//    wait on a barrier must return on the phase after the last one it saw
//    itself or, where it skips phases, the phase after the last it knows
//    complete: by its own waits or by those of the roles that arrived at a
//    named barrier it then waited at (ping-pong consumers that take every
//    other unit of one ring hand the phases they saw on with their turn).
//  - Stages. A read of a stage is checked against the copy that last wrote
//    it. A cp.async copy completes with the phase its thread's next
//    cp.async.mbarrier.arrive is counted in.
//  - Bulk stores. Each role keeps its bulk groups as the hardware keeps a
//    thread's (cp.async.bulk.commit_group, wait_group[.read] N keeps the N
//    newest); a write of a tile that a group of any role still reads is
//    reported (T-PROTO-14).
//  - Collectives. Aligned warp and warpgroup instructions (wgmma, mma.sync,
//    ldmatrix, stmatrix, named barriers) are passed together by all the roles
//    connected through shared warps or warpgroups, gpu.barrier and
//    cluster_wait by all; roles passing one together share what each has
//    waited for.
//  - Exchanged buffers (T-PROTO-15). Each role keeps a vector clock of the
//    others' events it is ordered after: joined at the barriers and
//    collectives it passes with them, at a named barrier's completion with
//    its arrivals (bar.sync waits for the thread count, bar.arrive adds to
//    it), and at an mbarrier wait with the arrivals of the phases completed
//    so far. A read of an exchanged stage must be ordered after every other
//    role's last write of it, and a write after every other role's reads
//    (a wgmma's once its wait retired it).
//  - Schedules. One event at a time of the first role in a priority order
//    that can proceed; with `promoteWoken`, a role woken by a phase
//    completion moves to the front of the order.
//
// The first finding (T-PROTO-7, 11, 12; see RoleProtocol.cpp) ends the run.
//===----------------------------------------------------------------------===//

#include "RoleProtocol.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::role_protocol;

namespace {

/// "stage (0, 1)" or "a buffer" (one filled in one piece) for messages.
std::string describeStage(const Stage &stage) {
  if (stage.second.empty())
    return "a buffer";
  std::string text = "stage ";
  if (stage.second.size() > 1)
    text += "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(stage.second, os);
  if (stage.second.size() > 1)
    os << ")";
  return text;
}

/// The state of one barrier in the simulation.
struct BarrierState {
  bool initialized = false;
  int64_t count = 0;
  int64_t pending = 0;
  int64_t tx = 0;
  int64_t phase = 0;
  Operation *init = nullptr;
};

/// The copy that last wrote a stage: its barrier, the phase it completes and
/// the role that issued it.
struct StageWrite {
  BarrierId barrier;
  int64_t phase;
  Operation *copy;
  unsigned role;
};

/// A vector clock: per role, the number of its events ordered before.
using Clock = std::vector<int64_t>;

/// `into` = the elementwise maximum of `into` and `from`.
void join(Clock &into, const Clock &from) {
  for (auto [a, b] : llvm::zip(into, from))
    a = std::max(a, b);
}

/// The latest phase of each mbarrier that a role has seen complete.
using SeenPhases = std::map<BarrierId, int64_t>;

/// `into` = the latest phase of each barrier in `into` or `from`.
void joinSeen(SeenPhases &into, const SeenPhases &from) {
  for (const auto &[id, phase] : from) {
    auto [it, fresh] = into.try_emplace(id, phase);
    if (!fresh)
      it->second = std::max(it->second, phase);
  }
}

/// A named barrier's current generation: the threads arrived, the roles
/// waiting, and the clock and the phases seen of every arrival.
struct NamedBarrierState {
  int64_t arrived = 0;
  int64_t threads = 0;
  SmallVector<unsigned> waiting;
  Clock clock;
  SeenPhases seen;
};

/// Runs the roles' traces against the barriers.
class Simulation {
public:
  /// With `promoteWoken`, a role woken by a phase completion moves to the
  /// front of the priority order; without, the order stays fixed.
  Simulation(ArrayRef<Role> roles, bool promoteWoken)
      : roles(roles), promoteWoken(promoteWoken) {
    cursors.resize(roles.size());
    for (Cursor &cursor : cursors)
      cursor.clock.assign(roles.size(), 0);
  }

  /// A finding, std::nullopt when every role ran to its end, or a finding
  /// with a null op when the run is not modeled.
  std::optional<Finding> run(SmallVector<unsigned> order) {
    priority = std::move(order);
    while (true) {
      bool progressed = false;
      for (unsigned r : SmallVector<unsigned>(priority)) {
        Step step = advance(r);
        if (finding)
          return finding;
        if (step == Step::Advanced) {
          progressed = true;
          break;
        }
      }
      if (!progressed)
        break;
    }
    return deadlock();
  }

private:
  enum class Step { Advanced, Blocked, Done };

  /// Per role: the next event, the phase last seen per barrier, and the
  /// stages its wgmmas may still read.
  struct Cursor {
    size_t next = 0;
    SeenPhases seen;
    /// The phases that roles it waited for at named barriers had seen
    /// (their own waits or handed on to them).
    SeenPhases handed;
    std::set<Stage> asyncOpen;
    std::deque<std::set<Stage>> asyncGroups;
    /// The tiles the role's bulk stores read, by store, not committed yet
    /// and per committed bulk group, oldest first.
    std::map<Stage, Operation *> bulkOpen;
    std::deque<std::map<Stage, Operation *>> bulkGroups;
    /// The others' events this role is ordered after (its own: its count).
    Clock clock;
    /// Exchanged stages its wgmmas may still read: not committed yet and
    /// per committed group.
    std::set<Stage> exchangeOpen;
    std::deque<std::set<Stage>> exchangeGroups;
    /// The stages its cp.async copies wrote since its last cp.async arrive,
    /// with the first copy into each.
    std::map<Stage, Operation *> gathered;
  };

  /// An exchanged stage's last write and last finished read per role, at
  /// that role's clock, with the op.
  struct Access {
    int64_t time;
    Operation *op;
  };
  std::map<Stage, std::map<unsigned, Access>> exchangeWrites;
  std::map<Stage, std::map<unsigned, Access>> exchangeReads;
  std::map<int64_t, NamedBarrierState> namedBarriers;
  /// Per mbarrier: the clocks of the arrivals of its current phase, and of
  /// every arrival of its completed phases.
  std::map<BarrierId, Clock> arrivalClocks, completedClocks;

  ArrayRef<Role> roles;
  bool promoteWoken;
  std::vector<Cursor> cursors;
  SmallVector<unsigned> priority;
  std::map<BarrierId, BarrierState> barriers;
  std::map<Stage, StageWrite> writes;
  std::optional<Finding> finding;

  const Event *current(unsigned r) const {
    const Cursor &cursor = cursors[r];
    if (cursor.next >= roles[r].trace.size())
      return nullptr;
    return &roles[r].trace[cursor.next];
  }

  void fail(Operation *op, std::string message) {
    if (!finding)
      finding = Finding{op, std::move(message), {}};
  }

  /// Completes phases while nothing is pending, waking their waiters.
  void settle(const BarrierId &id) {
    BarrierState &state = barriers[id];
    if (state.pending <= 0 && state.tx == 0) {
      if (auto it = arrivalClocks.find(id); it != arrivalClocks.end()) {
        Clock &completed = completedClocks[id];
        completed.resize(roles.size(), 0);
        join(completed, it->second);
        arrivalClocks.erase(it);
      }
      // One or more phases complete (arrivals beyond a phase's count go to
      // the next ones; a count dropped to zero completes just this one).
      int64_t phases = state.count > 0 ? -state.pending / state.count + 1 : 1;
      state.phase += phases;
      state.pending += phases * state.count;
      if (!promoteWoken)
        return;
      SmallVector<unsigned> woken;
      for (unsigned r : priority)
        if (const Event *event = current(r);
            event && event->kind == EventKind::Wait && event->barrier == id)
          woken.push_back(r);
      for (unsigned r : woken)
        llvm::erase(priority, r);
      priority.insert(priority.begin(), woken.begin(), woken.end());
    }
  }

  static std::string describe(const BarrierId &id) {
    return "barrier " + std::to_string(id.second);
  }

  /// T-PROTO-12 for a read of `stage` by role `r`.
  void checkRead(unsigned r, const Event &event) {
    auto it = writes.find(*event.stage);
    if (it == writes.end()) {
      fail(event.op, "reads " + describeStage(*event.stage) + " (" +
                         roles[r].describe() +
                         ") that copies fill before any copy into it "
                         "completed: its wait returned too early (T-PROTO-12)");
      return;
    }
    const StageWrite &write = it->second;
    const BarrierState &state = barriers[write.barrier];
    const Cursor &cursor = cursors[r];
    auto seen = cursor.seen.find(write.barrier);
    if (state.phase > write.phase && seen != cursor.seen.end() &&
        seen->second >= write.phase)
      return;
    std::string message =
        "reads " + describeStage(*event.stage) + " (" + roles[r].describe() +
        ") written by a copy that completes phase " +
        std::to_string(write.phase) + " of " + describe(write.barrier) + ", ";
    if (state.phase <= write.phase)
      message += "which has not completed";
    else if (seen == cursor.seen.end())
      message += "which this role never waited for";
    else
      message += "but this role's last wait on it saw phase " +
                 std::to_string(seen->second);
    message += ": the stage is read before its data arrived or after it was "
               "refilled (T-PROTO-12)";
    fail(event.op, message);
    finding->notes.push_back({write.copy, "the copy"});
  }

  /// T-PROTO-12 for a copy into `stage` that a wgmma of another role reads.
  void checkOverwrite(unsigned r, const Event &event) {
    for (auto [other, cursor] : llvm::enumerate(cursors)) {
      if (other == r)
        continue;
      bool reading = cursor.asyncOpen.count(*event.stage) ||
                     llvm::any_of(cursor.asyncGroups, [&](const auto &group) {
                       return group.count(*event.stage) != 0;
                     });
      if (!reading)
        continue;
      fail(event.op, "overwrites " + describeStage(*event.stage) +
                         " while a wgmma of " + roles[other].describe() +
                         " may still read it: the stage was released before "
                         "the wgmma reading it was waited for (T-PROTO-12)");
      return;
    }
  }

  /// The next value of role `r`'s own clock (one of its exchange events).
  int64_t tick(unsigned r) { return ++cursors[r].clock[r]; }

  /// Another role's access in `accesses` (of an exchanged stage) that
  /// nothing orders before role `r`'s next event, if any.
  std::optional<std::pair<unsigned, Access>>
  findUnordered(unsigned r,
                const std::map<Stage, std::map<unsigned, Access>> &accesses,
                const Stage &stage) const {
    auto it = accesses.find(stage);
    if (it == accesses.end())
      return std::nullopt;
    for (const auto &[other, access] : it->second)
      if (other != r && cursors[r].clock[other] < access.time)
        return std::pair(other, access);
    return std::nullopt;
  }

  /// T-PROTO-15 for a read of an exchanged stage by role `r`: every other
  /// role's last write of it is ordered before.
  void checkExchangeRead(unsigned r, const Event &event) {
    auto write = findUnordered(r, exchangeWrites, *event.stage);
    if (!write)
      return;
    fail(event.op, "reads " + describeStage(*event.stage) + " (" +
                       roles[r].describe() + ") that " +
                       roles[write->first].describe() +
                       " wrote with nothing ordering the write before the "
                       "read: a barrier that both pass between them, after "
                       "a fence.proxy.async for a wgmma's read (T-PROTO-15)");
    finding->notes.push_back({write->second.op, "the write"});
  }

  /// T-PROTO-15 for a write of an exchanged stage by role `r`: no other
  /// role's wgmma may still read it, and every other role's last read of it
  /// is ordered before.
  void checkExchangeWrite(unsigned r, const Event &event) {
    for (auto [other, cursor] : llvm::enumerate(cursors)) {
      if (other == r)
        continue;
      bool reading = cursor.exchangeOpen.count(*event.stage) ||
                     llvm::any_of(cursor.exchangeGroups, [&](const auto &g) {
                       return g.count(*event.stage) != 0;
                     });
      if (reading) {
        fail(event.op, "writes " + describeStage(*event.stage) + " (" +
                           roles[r].describe() + ") while a wgmma of " +
                           roles[other].describe() +
                           " may still read it (T-PROTO-15)");
        return;
      }
    }
    auto read = findUnordered(r, exchangeReads, *event.stage);
    if (!read)
      return;
    fail(event.op, "writes " + describeStage(*event.stage) + " (" +
                       roles[r].describe() + ") that " +
                       roles[read->first].describe() +
                       " read with nothing ordering the read (its wgmma's "
                       "wait) before the write: a barrier that both pass "
                       "between them, or another stage (T-PROTO-15)");
    finding->notes.push_back({read->second.op, "the read (or its wait)"});
  }

  /// T-PROTO-14 for a write of a tile that a bulk store may still read.
  void checkWrite(unsigned r, const Event &event) {
    for (auto [other, cursor] : llvm::enumerate(cursors)) {
      Operation *store = nullptr;
      size_t newer = 0;
      if (auto it = cursor.bulkOpen.find(*event.stage);
          it != cursor.bulkOpen.end())
        store = it->second;
      for (size_t i = 0; !store && i < cursor.bulkGroups.size(); ++i)
        if (auto it = cursor.bulkGroups[i].find(*event.stage);
            it != cursor.bulkGroups[i].end()) {
          store = it->second;
          newer = cursor.bulkGroups.size() - 1 - i;
        }
      if (!store)
        continue;
      std::string message = "writes " + describeStage(*event.stage) + " (" +
                            roles[r].describe() + ") while a bulk store of " +
                            roles[other].describe() + " may still read it: ";
      if (cursor.bulkOpen.count(*event.stage))
        message += "the store is not committed and waited for yet";
      else
        message += std::to_string(newer) +
                   " newer bulk group(s) were committed after it, so the "
                   "wait before the write must keep at most " +
                   std::to_string(newer) + " pending";
      fail(event.op, message + " (T-PROTO-14)");
      finding->notes.push_back({store, "the bulk store"});
      return;
    }
  }

  Step advance(unsigned r) {
    const Event *event = current(r);
    if (!event)
      return Step::Done;
    Cursor &cursor = cursors[r];
    int64_t times = event->perThread ? roles[r].threads : 1;
    switch (event->kind) {
    case EventKind::Init: {
      BarrierState &state = barriers[event->barrier];
      state = BarrierState{true, event->amount, event->amount, 0, 0, event->op};
      for (Cursor &each : cursors) {
        each.seen.erase(event->barrier);
        each.handed.erase(event->barrier);
      }
      break;
    }
    case EventKind::Inval:
      barriers[event->barrier].initialized = false;
      break;
    case EventKind::Arrive:
    case EventKind::ArriveDrop: {
      BarrierState &state = barriers[event->barrier];
      if (!state.initialized)
        return notModeled();
      Clock &arrivals = arrivalClocks[event->barrier];
      arrivals.resize(roles.size(), 0);
      join(arrivals, cursor.clock);
      for (int64_t t = 0; t < times; ++t) {
        state.pending -= event->amount;
        // arrive_drop: this phase gets the arrival, later phases expect one
        // fewer.
        if (event->kind == EventKind::ArriveDrop)
          --state.count;
        settle(event->barrier);
      }
      break;
    }
    case EventKind::ExpectTx: {
      BarrierState &state = barriers[event->barrier];
      state.tx += event->amount * times;
      if (state.tx > kMaxAmount * 1024)
        return notModeled();
      break;
    }
    case EventKind::Deliver: {
      BarrierState &state = barriers[event->barrier];
      if (!state.initialized)
        return notModeled();
      if (event->stage) {
        checkOverwrite(r, *event);
        writes[*event->stage] = {event->barrier, state.phase, event->op, r};
      }
      state.tx -= event->amount * times;
      if (state.tx < -kMaxAmount * 1024)
        return notModeled();
      settle(event->barrier);
      break;
    }
    case EventKind::Gather:
      checkOverwrite(r, *event);
      cursor.gathered.try_emplace(*event->stage, event->op);
      break;
    case EventKind::Gathered: {
      // The copies complete before this arrival counts: with the phase it
      // is counted in.
      BarrierState &state = barriers[event->barrier];
      if (!state.initialized)
        return notModeled();
      for (auto [stage, copy] : cursor.gathered)
        writes[stage] = {event->barrier, state.phase, copy, r};
      cursor.gathered.clear();
      break;
    }
    case EventKind::Wait: {
      BarrierState &state = barriers[event->barrier];
      if (!state.initialized)
        return notModeled();
      if ((state.phase & 1) == (event->amount & 1))
        return Step::Blocked;
      int64_t observed = state.phase - 1;
      // Before its first wait a role has seen "phase -2": the first wait
      // returns on the phase before the first (-1: parity 1 on a fresh
      // barrier) or on the first.
      auto [seen, fresh] = cursor.seen.try_emplace(event->barrier, -2);
      (void)fresh;
      // A wait for nothing: it returns at once on a phase known complete.
      auto returnsAtOnce = [&](StringRef why) {
        fail(event->op,
             "waits for parity " + std::to_string(event->amount & 1) + " of " +
                 describe(event->barrier) + " (" + roles[r].describe() +
                 "), which returns at once on phase " +
                 std::to_string(observed) + " " + why.str() + " (T-PROTO-7)");
        return Step::Advanced;
      };
      if (observed <= seen->second)
        return returnsAtOnce("that this role already saw: the parity must "
                             "flip each time the ring comes back to the "
                             "barrier");
      // The latest phase this role knows complete: its own waits', or one
      // handed on at a named barrier (a role may skip the phases another
      // waited for before passing it the turn). The wait meant the phase
      // after its own last one or, skipping, the phase after that.
      int64_t own = std::max<int64_t>(seen->second, -1);
      int64_t known = own;
      if (auto handed = cursor.handed.find(event->barrier);
          handed != cursor.handed.end())
        known = std::max(known, handed->second);
      if (observed > own + 1 && observed <= known)
        return returnsAtOnce("that a role it waited for at a named barrier "
                             "already saw: a role that skips the phases of "
                             "another's turn must wait for the phase after "
                             "them");
      if (observed > known + 1) {
        fail(event->op,
             "waits for parity " + std::to_string(event->amount & 1) + " of " +
                 describe(event->barrier) + " (" + roles[r].describe() +
                 ") and returns on phase " + std::to_string(observed) +
                 (seen->second == -2
                      ? std::string(", though this is its first wait on it")
                      : ", but its previous wait saw phase " +
                            std::to_string(seen->second)) +
                 ": the role fell two phases behind the ring and a parity "
                 "names a phase only modulo 2" +
                 behindRing(r, event->barrier,
                            " (threads that only wait on a ring must not lag: "
                            "let one thread run it)") +
                 " (T-PROTO-7)");
        addRefillNote(r, event->barrier);
        return Step::Advanced;
      }
      cursor.seen[event->barrier] = observed;
      if (auto it = completedClocks.find(event->barrier);
          it != completedClocks.end())
        join(cursor.clock, it->second);
      break;
    }
    case EventKind::Read:
      checkRead(r, *event);
      break;
    case EventKind::AsyncRead:
      checkRead(r, *event);
      cursor.asyncOpen.insert(*event->stage);
      break;
    case EventKind::AsyncCommit:
      cursor.asyncGroups.push_back(std::move(cursor.asyncOpen));
      cursor.asyncOpen.clear();
      cursor.exchangeGroups.push_back(std::move(cursor.exchangeOpen));
      cursor.exchangeOpen.clear();
      break;
    case EventKind::AsyncWait:
      while (static_cast<int64_t>(cursor.asyncGroups.size()) > event->amount)
        cursor.asyncGroups.pop_front();
      if (event->amount == 0)
        cursor.asyncOpen.clear();
      while (static_cast<int64_t>(cursor.exchangeGroups.size()) >
             event->amount) {
        for (const Stage &stage : cursor.exchangeGroups.front())
          exchangeReads[stage][r] = {tick(r), event->op};
        cursor.exchangeGroups.pop_front();
      }
      if (event->amount == 0) {
        for (const Stage &stage : cursor.exchangeOpen)
          exchangeReads[stage][r] = {tick(r), event->op};
        cursor.exchangeOpen.clear();
      }
      break;
    case EventKind::ExchangeWrite:
      checkExchangeWrite(r, *event);
      exchangeWrites[*event->stage][r] = {tick(r), event->op};
      break;
    case EventKind::ExchangeRead:
      checkExchangeRead(r, *event);
      if (event->amount)
        cursor.exchangeOpen.insert(*event->stage);
      else
        exchangeReads[*event->stage][r] = {tick(r), event->op};
      break;
    case EventKind::NamedArrive:
    case EventKind::NamedSync: {
      NamedBarrierState &state = namedBarriers[event->barrier.second];
      bool sync = event->kind == EventKind::NamedSync;
      if (sync && llvm::is_contained(state.waiting, r))
        return Step::Blocked;
      if (state.arrived == 0)
        state =
            NamedBarrierState{0, event->amount, {}, Clock(roles.size(), 0), {}};
      if (state.threads != event->amount)
        return notModeled();
      state.arrived += roles[r].threads;
      join(state.clock, cursor.clock);
      joinSeen(state.seen, cursor.seen);
      joinSeen(state.seen, cursor.handed);
      if (sync)
        state.waiting.push_back(r);
      if (state.arrived > state.threads)
        return notModeled();
      if (state.arrived < state.threads) {
        if (sync)
          return Step::Blocked;
        break;
      }
      // Complete: the waiting roles go on, ordered after every arrival and
      // the mbarrier phases its role had seen complete (T-PROTO-7).
      NamedBarrierState done = std::move(state);
      namedBarriers.erase(event->barrier.second);
      for (unsigned waiter : done.waiting) {
        join(cursors[waiter].clock, done.clock);
        joinSeen(cursors[waiter].handed, done.seen);
        ++cursors[waiter].next;
      }
      if (sync)
        return Step::Advanced;
      break;
    }
    case EventKind::BulkRead:
      cursor.bulkOpen.emplace(*event->stage, event->op);
      break;
    case EventKind::BulkCommit:
      cursor.bulkGroups.push_back(std::move(cursor.bulkOpen));
      cursor.bulkOpen.clear();
      break;
    case EventKind::BulkWait:
      while (static_cast<int64_t>(cursor.bulkGroups.size()) > event->amount)
        cursor.bulkGroups.pop_front();
      break;
    case EventKind::Write:
      checkWrite(r, *event);
      break;
    case EventKind::Collective: {
      // Every running role connected to this one through shared units of
      // warps must be at the same op; they pass it together and share what
      // they have waited for.
      int64_t unit = event->amount;
      auto shareUnit = [&](unsigned a, unsigned b) {
        for (int w : roles[a].warps.set_bits())
          for (int v : roles[b].warps.set_bits())
            if (w / unit == v / unit)
              return true;
        return false;
      };
      SmallVector<unsigned> group = {r};
      for (size_t i = 0; i < group.size(); ++i)
        for (unsigned other = 0; other < roles.size(); ++other)
          if (current(other) && !llvm::is_contained(group, other) &&
              shareUnit(group[i], other))
            group.push_back(other);
      for (unsigned other : group) {
        const Event *at = current(other);
        if (at->kind != EventKind::Collective || at->op != event->op)
          return Step::Blocked;
      }
      meet(group);
      return Step::Advanced;
    }
    case EventKind::Sync: {
      // Every role still running must be at a CTA barrier.
      SmallVector<unsigned> group;
      for (unsigned other = 0; other < roles.size(); ++other) {
        const Event *at = current(other);
        if (at && at->kind != EventKind::Sync)
          return Step::Blocked;
        if (at)
          group.push_back(other);
      }
      meet(group);
      return Step::Advanced;
    }
    }
    ++cursor.next;
    return Step::Advanced;
  }

  /// Roles passing a barrier or collective together: each has seen what
  /// any of them has waited for (a thread that waited, then a bar.sync,
  /// orders the others' reads after the wait too).
  void meet(ArrayRef<unsigned> group) {
    Clock clock(roles.size(), 0);
    for (unsigned r : group)
      join(clock, cursors[r].clock);
    for (unsigned r : group)
      cursors[r].clock = clock;
    SeenPhases seen;
    for (unsigned r : group)
      joinSeen(seen, cursors[r].seen);
    for (unsigned r : group) {
      joinSeen(cursors[r].seen, seen);
      ++cursors[r].next;
    }
  }

  Step notModeled() {
    if (!finding)
      finding =
          Finding{nullptr, "a barrier used before its initialization", {}};
    return Step::Blocked;
  }

  /// Why a role's blocked wait names a phase that never comes when the
  /// barrier is already past the phase the role meant (the next after the
  /// one its previous wait saw; for a first wait, the phase before the
  /// first for parity 1, the first for parity 0); empty otherwise.
  std::string lagging(unsigned r, const Event &wait,
                      const BarrierState &state) const {
    auto seen = cursors[r].seen.find(wait.barrier);
    bool first = seen == cursors[r].seen.end() || seen->second == -2;
    int64_t meant = first ? ((wait.amount & 1) ? -1 : 0) : seen->second + 1;
    if (state.phase <= meant)
      return "";
    return std::string("; the barrier is past the phase this role meant (") +
           (first ? "this is its first wait on it"
                  : "its previous wait saw phase " +
                        std::to_string(seen->second)) +
           ")" +
           behindRing(r, wait.barrier,
                      ": threads that only wait on a ring fall behind it and "
                      "a parity names a phase only modulo 2; let one thread "
                      "run the ring");
  }

  /// The copy by another role into a stage that role `r` reads, filled
  /// through `barrier`: the ring's refill that ran ahead of r's reads.
  const StageWrite *findRefillByOther(unsigned r,
                                      const BarrierId &barrier) const {
    for (const Event &event : roles[r].trace) {
      if ((event.kind != EventKind::Read &&
           event.kind != EventKind::AsyncRead) ||
          !event.stage)
        continue;
      auto it = writes.find(*event.stage);
      if (it != writes.end() && it->second.barrier == barrier &&
          it->second.role != r)
        return &it->second;
    }
    return nullptr;
  }

  /// Why role `r` is behind the ring of `barrier`. When another role's
  /// copies refill stages that r reads, nothing ordered r's reads before the
  /// refill (a write-after-read race): that is the fix to name. Otherwise
  /// `lagAdvice`: r only waits on a ring it does not run.
  std::string behindRing(unsigned r, const BarrierId &barrier,
                         StringRef lagAdvice) const {
    const StageWrite *refill = findRefillByOther(r, barrier);
    if (!refill)
      return lagAdvice.str();
    return ": " + roles[refill->role].describe() +
           " issued the copies that refill the stages this role reads "
           "(the last one for phase " +
           std::to_string(refill->phase) + " of " + describe(barrier) +
           ") without waiting for this role's reads of the stage, so the "
           "ring ran ahead of them (a write-after-read race on the ring); "
           "order the reads before the refill: a gpu.barrier (or a named "
           "barrier) between the reads and the refill, or an arrival of the "
           "readers on an empty mbarrier that the producer waits on before "
           "the refill";
  }

  /// Points at the refill that ran ahead of role `r`'s reads, if any.
  void addRefillNote(unsigned r, const BarrierId &barrier) {
    if (!finding)
      return;
    if (const StageWrite *refill = findRefillByOther(r, barrier))
      finding->notes.push_back(
          {refill->copy, "the refill (" + roles[refill->role].describe() +
                             "), not ordered after the reads"});
  }

  /// T-PROTO-11: roles blocked at waits that no role can complete. Roles
  /// blocked at collectives only (whose partners took another path) are not
  /// modeled.
  std::optional<Finding> deadlock() {
    // A role at a named barrier that the rest never complete.
    for (unsigned r : priority) {
      const Event *event = current(r);
      if (!event || event->kind != EventKind::NamedSync)
        continue;
      const NamedBarrierState &state = namedBarriers[event->barrier.second];
      return Finding{event->op,
                     "waits at named barrier " +
                         std::to_string(event->barrier.second) + " (" +
                         roles[r].describe() + ") for " +
                         std::to_string(event->amount) + " threads, of which " +
                         std::to_string(state.arrived) +
                         " arrive: every role is blocked or done, a hang "
                         "(T-PROTO-11)",
                     {}};
    }
    bool running = llvm::any_of(llvm::seq<unsigned>(0, roles.size()),
                                [&](unsigned r) { return current(r); });
    bool waiting =
        llvm::any_of(llvm::seq<unsigned>(0, roles.size()), [&](unsigned r) {
          const Event *event = current(r);
          return event && event->kind == EventKind::Wait;
        });
    if (running && !waiting)
      return Finding{nullptr,
                     "threads of one warp or warpgroup that do not "
                     "meet at an aligned collective op",
                     {}};
    std::optional<Finding> result;
    for (unsigned r : priority) {
      const Event *event = current(r);
      if (!event || event->kind != EventKind::Wait)
        continue;
      if (result) {
        result->notes.push_back(
            {event->op, roles[r].describe() + " is blocked here"});
        continue;
      }
      const BarrierState &state = barriers[event->barrier];
      result = Finding{
          event->op,
          "waits for parity " + std::to_string(event->amount & 1) + " of " +
              describe(event->barrier) + " (" + roles[r].describe() +
              ") in phase " + std::to_string(state.phase) +
              ", which never completes: every role is blocked or done with " +
              std::to_string(std::max<int64_t>(state.pending, 0)) + " of " +
              std::to_string(state.count) + " arrivals missing and " +
              (state.tx >= 0 ? std::to_string(state.tx) +
                                   " transaction bytes still expected"
                             : std::to_string(-state.tx) +
                                   " transaction bytes more delivered than "
                                   "expected") +
              lagging(r, *event, state) + " (T-PROTO-11)",
          {}};
      if (state.init)
        result->notes.push_back({state.init, "barrier initialized here"});
      if (!lagging(r, *event, state).empty())
        if (const StageWrite *refill = findRefillByOther(r, event->barrier))
          result->notes.push_back(
              {refill->copy, "the refill (" + roles[refill->role].describe() +
                                 "), not ordered after the reads"});
    }
    return result;
  }
};

} // namespace

std::optional<Finding>
role_protocol::simulateRoles(ArrayRef<Role> roles, bool promoteWoken,
                             SmallVector<unsigned> order) {
  return Simulation(roles, promoteWoken).run(std::move(order));
}
