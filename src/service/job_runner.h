// service/job_runner.h
//
// Long operations that outlive their request -- package creation, import, undo, validation
// (migrations), cube publishes -- as jobs persisted in the storage service (storage::JobRecord).
//
// Contract:
//   - A caller stores a job (NewJob) in the same transaction as the state the job works on, then
//     calls Start(job id) once that transaction committed. The job belongs to this node from the
//     moment it is stored: its lease names the node and is renewed every lease/3 while the job
//     waits or runs, so no other node takes it over.
//   - Jobs with the same serial key run one at a time, in the order they were started; others run
//     side by side on `workers` threads.
//   - RunHere() runs a stored job on the caller's thread instead (a cube publish, whose thread its
//     service owns), with the same lease, heartbeat, outcome and failure rules as a worker's job;
//     it returns when the job is done or failed. Stop() cancels such jobs and waits for them too.
//   - At each heartbeat, for each job that waits or runs here and is still held, the kind's
//     `heartbeat` (optional) is called on the heartbeat thread: a sign of life for whoever
//     watches the job from elsewhere. A job storing its outcome (MarkDone) keeps its row locked:
//     its lease is not renewed until that transaction ends, but its heartbeat goes on.
//   - Cancel() cancels one running job of this node (JobContext::cancelled), as Stop() does.
//   - A kind's `run` does the work and stores its outcome by calling JobContext::MarkDone inside
//     the transaction that stores the work's effect: the effect and "done" commit together or not
//     at all. MarkDone locks the job row and refuses (JobLost) a job this node no longer holds.
//   - A `run` that throws, or returns without MarkDone, fails the job: the kind's `fail` stores
//     the failure of the state it worked on, and the job becomes "failed", in one transaction.
//   - Recover() fails abandoned jobs: jobs of another node whose lease expired, and -- on the
//     first call after a start -- every unfinished job of this node id (the node restarted).
//     Interrupted jobs are failed, not resumed; their kind's `fail` says why. Each abandoned job is
//     failed exactly once whatever the number of nodes recovering (the row is locked, re-checked).
//   - A failure that cannot be stored because the storage service is down is retried by Recover.
//   - Stop() cancels the running jobs (JobContext::cancelled), waits for them and fails queued
//     ones (or leaves them for recovery when the storage service refuses). Safe to call from any
//     thread but a job's own; the destructor stops.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "storage/metadata_store.h"

namespace tessera::service {

struct JobRunnerOptions {
  std::string node_id;  // stable across restarts of this node (app/ keeps it in the data dir);
                        // empty: a random one
  int workers = 2;
  std::chrono::milliseconds lease{30000};
};

// Thrown by MarkDone when the job was taken over: the work's transaction must not commit.
class JobLost : public Error {
 public:
  explicit JobLost(const std::string& job_id);
};

// What the runner and a running job share.
struct JobControl {
  std::atomic<bool> cancelled{false};   // the node is stopping, or the job was taken over
  std::atomic<bool> row_locked{false};  // MarkDone holds the job row: leases wait for the commit
};

class JobContext {
 public:
  JobContext(const storage::JobRecord& job, const std::string& node_id, JobControl& control)
      : job_(job), node_id_(node_id), control_(control) {}

  const storage::JobRecord& job() const { return job_; }
  bool cancelled() const { return control_.cancelled.load(); }
  // The flag behind cancelled(), for work that watches it itself (a warehouse query).
  const std::atomic<bool>* cancel_flag() const { return &control_.cancelled; }
  // Throws Error(kServiceUnavailable) saying the job was interrupted when cancelled(): for loops
  // to call between units of work.
  void ThrowIfCancelled() const;

  // Inside the transaction that stores the job's effect (call it first: the job row stays locked
  // until that transaction ends). Throws JobLost when this node no longer holds the job.
  void MarkDone(storage::MetadataTransaction& tx);
  bool is_marked_done() const { return marked_done_; }

 private:
  storage::JobRecord job_;
  std::string node_id_;
  JobControl& control_;
  bool marked_done_ = false;
};

struct JobKind {
  std::function<void(JobContext&)> run;  // unused by jobs that only RunHere() runs
  // Stores, inside `tx`, that the work of `job` failed for `reason` (written for the user).
  std::function<void(storage::MetadataTransaction& tx, const storage::JobRecord& job,
                     const std::string& reason)>
      fail;
  // Optional: `job` is still waiting or running on this node (see the contract).
  std::function<void(const storage::JobRecord& job)> heartbeat;
};

class JobRunner {
 public:
  JobRunner(storage::MetadataStore& store, JobRunnerOptions options);
  ~JobRunner();
  JobRunner(const JobRunner&) = delete;
  JobRunner& operator=(const JobRunner&) = delete;

  // Before Start(): the kinds this node runs and recovers.
  void RegisterKind(const std::string& kind, JobKind handlers);

  // A new job of `kind`, held by this node, for the caller to store with PutJob.
  storage::JobRecord NewJob(const std::string& kind, const std::string& serial_key,
                            Json data) const;
  void Start(const storage::JobRecord& job);
  // Runs `job` (stored by the caller, as for Start) on this thread with `run` in place of its
  // kind's. Returns "" when the job is done, else why it is not (its failure's message, which the
  // kind's `fail` stored unless the job was taken over or the storage service refused).
  std::string RunHere(const storage::JobRecord& job, const std::function<void(JobContext&)>& run);
  void Cancel(const std::string& job_id);

  // Fails abandoned jobs and retries failures the storage service refused. Call at start and
  // then periodically; returns how many jobs it failed.
  int Recover();
  void Stop();

  const std::string& node_id() const { return options_.node_id; }
  // Jobs started here and not finished yet (queued or running).
  size_t active_jobs() const;

 private:
  struct Active;

  void WorkerLoop();
  void HeartbeatLoop();
  // Runs the job with `run` (null: its kind's) and stores its failure; returns it ("" if done).
  std::string Run(const std::shared_ptr<Active>& active,
                  const std::function<void(JobContext&)>& run);
  // Fails the job if it is still running under `expected_owner` (and, when given, the same
  // lease expiry); returns whether it did.
  bool Fail(const std::string& job_id, const std::string& expected_owner,
            std::optional<Timestamp> expected_expires, const std::string& reason);
  void FailQueued();
  void RenewLeases();
  void Heartbeat(const storage::JobRecord& job);  // tells the kind's `heartbeat`
  std::shared_ptr<Active> NextRunnable();         // with mutex_ held
  void Finish(const std::shared_ptr<Active>& active);
  bool IsActive(const std::string& job_id) const;  // with mutex_ held

  storage::MetadataStore& store_;
  JobRunnerOptions options_;
  std::map<std::string, JobKind> kinds_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;            // workers: a job was queued or finished
  std::condition_variable heartbeat_wake_;  // the heartbeat: stopping
  std::condition_variable here_ended_;      // Stop(): a RunHere() job ended
  std::deque<std::shared_ptr<Active>> queue_;
  std::map<std::string, std::shared_ptr<Active>> active_;  // by job id
  std::set<std::string> running_serial_keys_;
  int running_here_ = 0;                                  // RunHere() jobs not ended yet
  std::map<std::string, std::string> unstored_failures_;  // job id -> reason
  bool stopping_ = false;
  bool recovered_once_ = false;
  std::vector<std::thread> workers_;
  std::thread heartbeat_;
};

}  // namespace tessera::service
