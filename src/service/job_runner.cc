#include "service/job_runner.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/ids.h"

namespace tessera::service {
namespace {

constexpr char kRunning[] = "running";

std::string SerialKeyOf(const storage::JobRecord& job) { return job.data.value("serialKey", ""); }

}  // namespace

struct JobRunner::Active {
  storage::JobRecord job;
  JobControl control;
  bool running = false;
};

JobLost::JobLost(const std::string& job_id)
    : Error(ErrorCode::kServiceUnavailable,
            fmt::format("job {} was taken over by another node", job_id)) {}

void JobContext::ThrowIfCancelled() const {
  if (cancelled()) {
    throw Error(ErrorCode::kServiceUnavailable,
                fmt::format("interrupted: node {} stopped before the work was complete", node_id_));
  }
}

void JobContext::MarkDone(storage::MetadataTransaction& tx) {
  control_.row_locked = true;
  auto stored = tx.FindJob(job_.id, /*for_update=*/true);
  if (!stored || stored->state != kRunning || stored->lease_owner != node_id_) {
    throw JobLost(job_.id);
  }
  stored->state = "done";
  stored->updated = Now();
  tx.PutJob(*stored);
  marked_done_ = true;
}

JobRunner::JobRunner(storage::MetadataStore& store, JobRunnerOptions options)
    : store_(store), options_(std::move(options)) {
  if (options_.node_id.empty()) options_.node_id = NewObjectId();
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
  heartbeat_ = std::thread([this] { HeartbeatLoop(); });
}

JobRunner::~JobRunner() { Stop(); }

void JobRunner::RegisterKind(const std::string& kind, JobKind handlers) {
  std::lock_guard lock(mutex_);
  kinds_[kind] = std::move(handlers);
}

storage::JobRecord JobRunner::NewJob(const std::string& kind, const std::string& serial_key,
                                     Json data) const {
  storage::JobRecord job;
  job.id = NewObjectId();
  job.kind = kind;
  job.state = kRunning;
  job.lease_owner = options_.node_id;
  job.created = Now();
  job.updated = job.created;
  job.lease_expires = job.created + options_.lease;
  job.data = std::move(data);
  job.data["serialKey"] = serial_key;
  return job;
}

void JobRunner::Start(const storage::JobRecord& job) {
  auto active = std::make_shared<Active>();
  active->job = job;
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;  // stored as running under this node: the next start recovers it
    active_[job.id] = active;
    queue_.push_back(active);
  }
  wake_.notify_all();
}

size_t JobRunner::active_jobs() const {
  std::lock_guard lock(mutex_);
  return active_.size();
}

bool JobRunner::IsActive(const std::string& job_id) const { return active_.count(job_id) > 0; }

std::shared_ptr<JobRunner::Active> JobRunner::NextRunnable() {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    std::string key = SerialKeyOf((*it)->job);
    if (!key.empty() && running_serial_keys_.count(key)) continue;
    auto active = *it;
    queue_.erase(it);
    if (!key.empty()) running_serial_keys_.insert(key);
    active->running = true;
    return active;
  }
  return nullptr;
}

void JobRunner::WorkerLoop() {
  std::unique_lock lock(mutex_);
  while (true) {
    std::shared_ptr<Active> active;
    wake_.wait(lock, [&] { return stopping_ || (active = NextRunnable()) != nullptr; });
    if (!active) return;  // stopping
    lock.unlock();
    Run(active, nullptr);
    Finish(active);
    lock.lock();
  }
}

std::string JobRunner::RunHere(const storage::JobRecord& job,
                               const std::function<void(JobContext&)>& run) {
  auto active = std::make_shared<Active>();
  active->job = job;
  active->running = true;
  bool is_stopping = false;
  {
    std::lock_guard lock(mutex_);
    is_stopping = stopping_;
    if (!is_stopping) {
      active_[job.id] = active;
      ++running_here_;
    }
  }
  if (is_stopping) {
    std::string reason =
        fmt::format("interrupted: node {} stopped before the work started", options_.node_id);
    try {
      Fail(job.id, options_.node_id, std::nullopt, reason);
    } catch (const std::exception& error) {
      spdlog::warn("job {} stays for recovery: {}", job.id, error.what());
    }
    return reason;
  }
  std::string outcome = Run(active, run);
  {
    std::lock_guard lock(mutex_);
    active_.erase(job.id);
    --running_here_;
  }
  here_ended_.notify_all();
  return outcome;
}

void JobRunner::Cancel(const std::string& job_id) {
  std::lock_guard lock(mutex_);
  auto active = active_.find(job_id);
  if (active != active_.end()) active->second->control.cancelled = true;
}

std::string JobRunner::Run(const std::shared_ptr<Active>& active,
                           const std::function<void(JobContext&)>& run) {
  const storage::JobRecord& job = active->job;
  std::function<void(JobContext&)> work = run;
  if (!work) {
    std::lock_guard lock(mutex_);
    auto kind = kinds_.find(job.kind);
    if (kind != kinds_.end()) work = kind->second.run;
  }
  std::string failure;
  if (!work) {
    failure = fmt::format("this node cannot run jobs of kind '{}'", job.kind);
  } else {
    JobContext context(job, options_.node_id, active->control);
    try {
      work(context);
      if (!context.is_marked_done()) failure = "the job ended without storing its outcome";
    } catch (const JobLost& lost) {
      spdlog::warn("job {} ({}) was taken over by another node; its work is dropped", job.id,
                   job.kind);
      return std::string(lost.message());
    } catch (const Error& error) {
      failure = std::string(error.message());
    } catch (const std::exception& error) {
      failure = fmt::format("internal error: {}", error.what());
    }
  }
  if (failure.empty()) return failure;
  try {
    Fail(job.id, options_.node_id, std::nullopt, failure);
  } catch (const std::exception& error) {
    spdlog::warn("could not store the failure of job {} ({}); retrying later", job.id,
                 error.what());
    std::lock_guard lock(mutex_);
    unstored_failures_[job.id] = failure;
  }
  return failure;
}

void JobRunner::Finish(const std::shared_ptr<Active>& active) {
  {
    std::lock_guard lock(mutex_);
    std::string key = SerialKeyOf(active->job);
    if (!key.empty()) running_serial_keys_.erase(key);
    active_.erase(active->job.id);
  }
  wake_.notify_all();
}

bool JobRunner::Fail(const std::string& job_id, const std::string& expected_owner,
                     std::optional<Timestamp> expected_expires, const std::string& reason) {
  bool failed = false;
  store_.Write([&](storage::MetadataTransaction& tx) {
    auto job = tx.FindJob(job_id, /*for_update=*/true);
    if (!job || job->state != kRunning || job->lease_owner != expected_owner) return;
    if (expected_expires && job->lease_expires != *expected_expires) return;  // renewed: alive
    auto kind = kinds_.find(job->kind);
    if (kind != kinds_.end() && kind->second.fail) kind->second.fail(tx, *job, reason);
    job->state = "failed";
    job->updated = Now();
    tx.PutJob(*job);
    failed = true;
  });
  if (failed) spdlog::warn("job {} failed: {}", job_id, reason);
  return failed;
}

int JobRunner::Recover() {
  int failed = 0;
  std::map<std::string, std::string> retries;
  {
    std::lock_guard lock(mutex_);
    retries = unstored_failures_;
  }
  for (const auto& [job_id, reason] : retries) {
    if (Fail(job_id, options_.node_id, std::nullopt, reason)) ++failed;
    std::lock_guard lock(mutex_);
    unstored_failures_.erase(job_id);
  }

  std::vector<storage::JobRecord> running;
  store_.Read([&](storage::MetadataTransaction& tx) { running = tx.ListJobs(kRunning); });
  bool after_restart;
  {
    std::lock_guard lock(mutex_);
    after_restart = !recovered_once_;
  }
  Timestamp now = Now();
  for (const auto& job : running) {
    {
      std::lock_guard lock(mutex_);
      if (IsActive(job.id) || unstored_failures_.count(job.id)) continue;
    }
    bool is_mine = job.lease_owner == options_.node_id;
    if (!(is_mine && after_restart) && job.lease_expires >= now) continue;
    std::string reason = is_mine
                             ? fmt::format(
                                   "interrupted: node {} restarted before the work was complete; "
                                   "no change was kept",
                                   job.lease_owner)
                             : fmt::format(
                                   "interrupted: node {} stopped before the work was complete; "
                                   "no change was kept",
                                   job.lease_owner);
    if (Fail(job.id, job.lease_owner, job.lease_expires, reason)) ++failed;
  }
  std::lock_guard lock(mutex_);
  recovered_once_ = true;
  return failed;
}

void JobRunner::RenewLeases() {
  std::vector<std::shared_ptr<Active>> jobs;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, active] : active_) jobs.push_back(active);
  }
  for (const auto& active : jobs) {
    if (active->control.row_locked) {  // storing its outcome: the lease waits for the commit
      Heartbeat(active->job);
      continue;
    }
    Timestamp renewed = Now() + options_.lease;
    bool held = true;
    try {
      store_.Write([&](storage::MetadataTransaction& tx) {
        auto stored = tx.FindJob(active->job.id, /*for_update=*/true);
        held = stored && stored->state == kRunning && stored->lease_owner == options_.node_id;
        if (held) {
          held = tx.ReplaceLease(active->job.id, options_.node_id, stored->lease_expires,
                                 options_.node_id, renewed);
        }
      });
    } catch (const std::exception& error) {
      spdlog::warn("could not renew the lease of job {}: {}", active->job.id, error.what());
      continue;
    }
    if (!held && !active->control.row_locked) active->control.cancelled = true;  // failed elsewhere
    if (held) Heartbeat(active->job);
  }
}

void JobRunner::Heartbeat(const storage::JobRecord& job) {
  std::function<void(const storage::JobRecord&)> heartbeat;
  {
    std::lock_guard lock(mutex_);
    auto kind = kinds_.find(job.kind);
    if (kind != kinds_.end()) heartbeat = kind->second.heartbeat;
  }
  if (!heartbeat) return;
  try {
    heartbeat(job);
  } catch (const std::exception& error) {
    spdlog::warn("job {} ({}): {}", job.id, job.kind, error.what());
  }
}

void JobRunner::HeartbeatLoop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    heartbeat_wake_.wait_for(lock, options_.lease / 3);
    if (stopping_) break;
    lock.unlock();
    RenewLeases();
    lock.lock();
  }
}

void JobRunner::FailQueued() {
  std::deque<std::shared_ptr<Active>> queued;
  {
    std::lock_guard lock(mutex_);
    queued.swap(queue_);
  }
  for (const auto& active : queued) {
    try {
      Fail(active->job.id, options_.node_id, std::nullopt,
           fmt::format("interrupted: node {} stopped before the work started", options_.node_id));
    } catch (const std::exception& error) {
      spdlog::warn("job {} stays for recovery: {}", active->job.id, error.what());
    }
    std::lock_guard lock(mutex_);
    active_.erase(active->job.id);
  }
}

void JobRunner::Stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    for (const auto& [id, active] : active_) active->control.cancelled = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  {
    std::unique_lock lock(mutex_);
    here_ended_.wait(lock, [&] { return running_here_ == 0; });
  }
  heartbeat_wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  FailQueued();
}

}  // namespace tessera::service
