// Persisted jobs: outcome stored with the effect, failures stored with their reason, one job at a
// time per serial key, recovery of jobs a stopped or restarted node left behind -- on SQLite and
// PostgreSQL, with several runners ("nodes") sharing one store.
#include "service/job_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <thread>

#include "core/time.h"
#include "support/store_backend_test.h"
#include "support/wait.h"

namespace tessera::testing {
namespace {

using namespace std::chrono_literals;
using service::JobContext;
using service::JobKind;
using service::JobRunner;
using service::JobRunnerOptions;
using storage::JobRecord;
using storage::MetadataTransaction;

constexpr char kKind[] = "test_job";

JobRunnerOptions NodeOptions(const std::string& node_id,
                             std::chrono::milliseconds lease = 30000ms) {
  JobRunnerOptions options;
  options.node_id = node_id;
  options.workers = 2;
  options.lease = lease;
  return options;
}

// A one-shot signal between a test and a job.
class Latch {
 public:
  void Open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  bool Wait(std::chrono::milliseconds timeout = 10000ms) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
};

class JobRunnerTest : public StoreBackendTest {
 protected:
  void SetUp() override {
    StoreBackendTest::SetUp();
    if (IsSkipped()) return;
    store_ = OpenStore();
  }

  // A kind whose failures are recorded as the setting "failure:<job id>".
  JobKind KindRunning(std::function<void(JobContext&)> run) {
    JobKind kind;
    kind.run = std::move(run);
    kind.fail = [this](MetadataTransaction& tx, const JobRecord& job, const std::string& reason) {
      ++fail_calls_;
      tx.PutSetting("failure:" + job.id, Json(reason));
    };
    return kind;
  }

  // Stores a job as its creator would, in a transaction of its own, and starts it.
  JobRecord Submit(JobRunner& runner, const std::string& serial_key = "", bool start = true) {
    JobRecord job = runner.NewJob(kKind, serial_key, Json::object());
    store_->Write([&](MetadataTransaction& tx) { tx.PutJob(job); });
    if (start) runner.Start(job);
    return job;
  }

  std::string StateOf(const std::string& job_id) {
    std::optional<JobRecord> job;
    store_->Read([&](MetadataTransaction& tx) { job = tx.FindJob(job_id); });
    return job ? job->state : "";
  }

  // The state the job ended in; fails the test if it still runs after 10 s.
  std::string WaitUntilEnded(const std::string& job_id) {
    std::string state;
    EXPECT_TRUE(WaitUntil(
        [&] {
          state = StateOf(job_id);
          return state != "running";
        },
        10s, "job " + job_id + " ended"));
    return state;
  }

  // Waits until the lease `job` was stored with has run out.
  static ::testing::AssertionResult WaitUntilLeaseExpired(const JobRecord& job) {
    return WaitUntil([&] { return Now() > job.lease_expires; }, 10s,
                     "the lease of job " + job.id + " ran out");
  }

  std::optional<Json> Setting(const std::string& key) {
    std::optional<Json> value;
    store_->Read([&](MetadataTransaction& tx) { value = tx.FindSetting(key); });
    return value;
  }

  std::unique_ptr<storage::MetadataStore> store_;
  std::atomic<int> fail_calls_{0};
};

TEST_P(JobRunnerTest, AJobStoresItsEffectAndDoneTogether) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  runner.RegisterKind(kKind, KindRunning([&](JobContext& context) {
                        store_->Write([&](MetadataTransaction& tx) {
                          context.MarkDone(tx);
                          tx.PutSetting("effect:" + context.job().id, Json(true));
                        });
                      }));

  JobRecord job = Submit(runner);

  EXPECT_EQ(WaitUntilEnded(job.id), "done");
  EXPECT_TRUE(Setting("effect:" + job.id).has_value());
  EXPECT_EQ(fail_calls_.load(), 0);
}

TEST_P(JobRunnerTest, AJobThatThrowsIsFailedWithItsReason) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  runner.RegisterKind(kKind, KindRunning([](JobContext&) {
                        throw Error(ErrorCode::kInvalidInput, "Package file is corrupt");
                      }));

  JobRecord job = Submit(runner);

  EXPECT_EQ(WaitUntilEnded(job.id), "failed");
  EXPECT_EQ(Setting("failure:" + job.id), Json("Package file is corrupt"));
}

TEST_P(JobRunnerTest, AnEffectWhoseTransactionFailsLeavesNothingButTheFailure) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  runner.RegisterKind(kKind, KindRunning([&](JobContext& context) {
                        store_->Write([&](MetadataTransaction& tx) {
                          context.MarkDone(tx);
                          tx.PutSetting("effect:" + context.job().id, Json(true));
                          throw Error(ErrorCode::kInvalidInput, "used by 2 objects");
                        });
                      }));

  JobRecord job = Submit(runner);

  EXPECT_EQ(WaitUntilEnded(job.id), "failed");
  EXPECT_FALSE(Setting("effect:" + job.id).has_value());
  EXPECT_EQ(Setting("failure:" + job.id), Json("used by 2 objects"));
}

TEST_P(JobRunnerTest, AJobThatNeverStoresItsOutcomeIsFailed) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  runner.RegisterKind(kKind, KindRunning([](JobContext&) {}));

  JobRecord job = Submit(runner);

  EXPECT_EQ(WaitUntilEnded(job.id), "failed");
  EXPECT_EQ(fail_calls_.load(), 1);
}

TEST_P(JobRunnerTest, JobsWithOneSerialKeyRunOneAtATimeInOrder) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  std::mutex mutex;
  std::vector<std::string> order;
  std::atomic<int> running{0};
  std::atomic<int> most_running{0};
  runner.RegisterKind(kKind, KindRunning([&](JobContext& context) {
                        int now = ++running;
                        most_running = std::max(most_running.load(), now);
                        // A job that takes a while, so that another one would start beside it,
                        // were that allowed: a sleep, since nothing is to be waited for.
                        std::this_thread::sleep_for(50ms);
                        {
                          std::lock_guard lock(mutex);
                          order.push_back(context.job().id);
                        }
                        --running;
                        store_->Write([&](MetadataTransaction& tx) { context.MarkDone(tx); });
                      }));

  std::vector<std::string> submitted;
  for (int i = 0; i < 3; ++i) submitted.push_back(Submit(runner, "project-1").id);
  for (const auto& id : submitted) EXPECT_EQ(WaitUntilEnded(id), "done");

  EXPECT_EQ(most_running.load(), 1);
  EXPECT_EQ(order, submitted);
}

TEST_P(JobRunnerTest, JobsWithDifferentSerialKeysRunSideBySide) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  std::atomic<int> started{0};
  Latch both_started;
  std::atomic<bool> overlapped{true};
  runner.RegisterKind(kKind, KindRunning([&](JobContext& context) {
                        if (++started == 2) both_started.Open();
                        if (!both_started.Wait(5000ms)) overlapped = false;
                        store_->Write([&](MetadataTransaction& tx) { context.MarkDone(tx); });
                      }));

  JobRecord first = Submit(runner, "project-1");
  JobRecord second = Submit(runner, "project-2");

  EXPECT_EQ(WaitUntilEnded(first.id), "done");
  EXPECT_EQ(WaitUntilEnded(second.id), "done");
  EXPECT_TRUE(overlapped.load());
}

TEST_P(JobRunnerTest, ARestartedNodeFailsTheJobsItLeftRunning) {
  JobRecord left_behind;
  {
    JobRunner before_crash(*store_, NodeOptions("node-a"));
    left_behind = Submit(before_crash, "", /*start=*/false);  // stored, never run: a crash
  }
  JobRunner restarted(*store_, NodeOptions("node-a"));
  restarted.RegisterKind(kKind, KindRunning([](JobContext&) {}));

  EXPECT_EQ(restarted.Recover(), 1);
  EXPECT_EQ(StateOf(left_behind.id), "failed");
  auto reason = Setting("failure:" + left_behind.id);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->get<std::string>().find("node-a restarted"), std::string::npos) << *reason;
  EXPECT_EQ(restarted.Recover(), 0);
}

TEST_P(JobRunnerTest, AnotherNodesJobIsFailedOnlyOnceItsLeaseExpired) {
  JobRunner stopped(*store_, NodeOptions("node-a", 300ms));
  JobRecord job = Submit(stopped, "", /*start=*/false);
  JobRunner survivor(*store_, NodeOptions("node-b"));
  survivor.RegisterKind(kKind, KindRunning([](JobContext&) {}));

  EXPECT_EQ(survivor.Recover(), 0);
  EXPECT_EQ(StateOf(job.id), "running");
  ASSERT_TRUE(WaitUntilLeaseExpired(job));

  EXPECT_EQ(survivor.Recover(), 1);
  EXPECT_EQ(StateOf(job.id), "failed");
}

TEST_P(JobRunnerTest, OfNodesRecoveringOneJobExactlyOneFailsIt) {
  JobRunner stopped(*store_, NodeOptions("node-a", 100ms));
  JobRecord job = Submit(stopped, "", /*start=*/false);
  ASSERT_TRUE(WaitUntilLeaseExpired(job));
  std::vector<std::unique_ptr<JobRunner>> nodes;
  for (int i = 0; i < 3; ++i) {
    nodes.push_back(std::make_unique<JobRunner>(*store_, NodeOptions("node-" + std::to_string(i))));
    nodes.back()->RegisterKind(kKind, KindRunning([](JobContext&) {}));
  }

  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (auto& node : nodes) {
    threads.emplace_back([&, runner = node.get()] {
      try {
        failed += runner->Recover();
      } catch (const std::exception&) {
      }
    });
  }
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(failed.load(), 1);
  EXPECT_EQ(fail_calls_.load(), 1);
  EXPECT_EQ(StateOf(job.id), "failed");
}

TEST_P(JobRunnerTest, ALiveNodeRenewsItsLeaseSoOthersLeaveItsJobAlone) {
  JobRunner owner(*store_, NodeOptions("node-a", 300ms));
  Latch finish;
  owner.RegisterKind(kKind, KindRunning([&](JobContext& context) {
                       finish.Wait();
                       store_->Write([&](MetadataTransaction& tx) { context.MarkDone(tx); });
                     }));
  JobRunner other(*store_, NodeOptions("node-b"));
  other.RegisterKind(kKind, KindRunning([](JobContext&) {}));

  JobRecord job = Submit(owner);
  int failed_by_other = 0;
  // Leases run out only as time passes, so this test sleeps: 1 s, more than three lease lengths.
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(100ms);
    failed_by_other += other.Recover();
  }
  finish.Open();

  EXPECT_EQ(failed_by_other, 0);
  EXPECT_EQ(WaitUntilEnded(job.id), "done");
}

TEST_P(JobRunnerTest, TheWorkOfAJobTakenOverIsRolledBack) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  Latch taken_over;
  runner.RegisterKind(kKind, KindRunning([&](JobContext& context) {
                        taken_over.Wait();
                        store_->Write([&](MetadataTransaction& tx) {
                          context.MarkDone(tx);
                          tx.PutSetting("effect:" + context.job().id, Json(true));
                        });
                      }));

  JobRecord job = Submit(runner);
  store_->Write([&](MetadataTransaction& tx) {  // as a node that found the lease expired would
    auto stored = tx.FindJob(job.id, true);
    stored->state = "failed";
    tx.PutJob(*stored);
  });
  taken_over.Open();
  ASSERT_TRUE(WaitUntil([&] { return runner.active_jobs() == 0; }, 10s, "the job ended"));

  EXPECT_EQ(StateOf(job.id), "failed");
  EXPECT_FALSE(Setting("effect:" + job.id).has_value());
  EXPECT_EQ(fail_calls_.load(), 0);
}

TEST_P(JobRunnerTest, StoppingANodeFailsItsRunningAndQueuedJobs) {
  auto runner = std::make_unique<JobRunner>(*store_, NodeOptions("node-a"));
  Latch started;
  runner->RegisterKind(kKind, KindRunning([&](JobContext& context) {
                         started.Open();
                         while (true) {  // works until stopped, looking at its cancel flag
                           context.ThrowIfCancelled();
                           std::this_thread::sleep_for(10ms);
                         }
                       }));
  JobRecord running = Submit(*runner, "project-1");
  JobRecord queued = Submit(*runner, "project-1");
  ASSERT_TRUE(started.Wait());

  runner->Stop();

  EXPECT_EQ(StateOf(running.id), "failed");
  EXPECT_EQ(StateOf(queued.id), "failed");
  auto reason = Setting("failure:" + running.id);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->get<std::string>().find("interrupted"), std::string::npos) << *reason;
}

TEST_P(JobRunnerTest, AJobRunHereRunsOnTheCallersThreadAndStoresItsOutcome) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  runner.RegisterKind(kKind, KindRunning(nullptr));
  JobRecord job = Submit(runner, "", /*start=*/false);
  std::thread::id ran_on;

  std::string outcome = runner.RunHere(job, [&](JobContext& context) {
    ran_on = std::this_thread::get_id();
    store_->Write([&](MetadataTransaction& tx) {
      context.MarkDone(tx);
      tx.PutSetting("effect:" + context.job().id, Json(true));
    });
  });

  EXPECT_EQ(outcome, "");
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(StateOf(job.id), "done");
  EXPECT_TRUE(Setting("effect:" + job.id).has_value());
  EXPECT_EQ(runner.active_jobs(), 0u);
}

TEST_P(JobRunnerTest, AJobRunHereThatThrowsIsFailedThroughItsKind) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  runner.RegisterKind(kKind, KindRunning(nullptr));
  JobRecord job = Submit(runner, "", /*start=*/false);

  std::string outcome = runner.RunHere(
      job, [](JobContext&) { throw Error(ErrorCode::kTimeout, "the warehouse timed out"); });

  EXPECT_EQ(outcome, "the warehouse timed out");
  EXPECT_EQ(StateOf(job.id), "failed");
  EXPECT_EQ(Setting("failure:" + job.id), Json("the warehouse timed out"));
}

TEST_P(JobRunnerTest, AJobRunHereKeepsItsLeaseAndItsKindHearsItsHeartbeat) {
  JobRunner owner(*store_, NodeOptions("node-a", 300ms));
  std::atomic<int> heartbeats{0};
  JobKind kind = KindRunning(nullptr);
  kind.heartbeat = [&](const JobRecord&) { ++heartbeats; };
  owner.RegisterKind(kKind, kind);
  JobRunner other(*store_, NodeOptions("node-b"));
  other.RegisterKind(kKind, KindRunning(nullptr));
  JobRecord job = Submit(owner, "", /*start=*/false);
  int failed_by_other = 0;

  std::string outcome = owner.RunHere(job, [&](JobContext& context) {
    // Leases run out only as time passes, so this test sleeps: 1 s, more than three lease lengths.
    for (int i = 0; i < 10; ++i) {
      std::this_thread::sleep_for(100ms);
      failed_by_other += other.Recover();
    }
    store_->Write([&](MetadataTransaction& tx) { context.MarkDone(tx); });
  });

  EXPECT_EQ(outcome, "");
  EXPECT_EQ(failed_by_other, 0);
  EXPECT_EQ(StateOf(job.id), "done");
  EXPECT_GE(heartbeats.load(), 2);
}

TEST_P(JobRunnerTest, AJobStoringItsOutcomeKeepsItsHeartbeatWhileItHoldsItsRow) {
  JobRunner runner(*store_, NodeOptions("node-a", 300ms));
  std::atomic<int> heartbeats{0};
  JobKind kind = KindRunning(nullptr);
  kind.heartbeat = [&](const JobRecord&) { ++heartbeats; };
  runner.RegisterKind(kKind, kind);
  JobRecord job = Submit(runner, "", /*start=*/false);
  ::testing::AssertionResult heard_during = ::testing::AssertionFailure();

  std::string outcome = runner.RunHere(job, [&](JobContext& context) {
    store_->Write([&](MetadataTransaction& tx) {
      context.MarkDone(tx);  // the row stays locked until this long transaction commits
      const int before = heartbeats.load();
      // The deadline is part of the check: heartbeats keep their pace (one every 100 ms, a
      // third of the lease) while the row is held.
      heard_during = WaitUntil([&] { return heartbeats.load() - before >= 2; }, 600ms,
                               "two heartbeats while the job held its row");
    });
  });

  EXPECT_EQ(outcome, "");
  EXPECT_TRUE(heard_during);
  EXPECT_EQ(StateOf(job.id), "done");
}

TEST_P(JobRunnerTest, StoppingANodeCancelsTheJobsRunHereAndWaitsForThem) {
  auto runner = std::make_unique<JobRunner>(*store_, NodeOptions("node-a"));
  runner->RegisterKind(kKind, KindRunning(nullptr));
  JobRecord job = Submit(*runner, "", /*start=*/false);
  Latch started;
  std::string outcome;
  std::thread caller([&] {
    outcome = runner->RunHere(job, [&](JobContext& context) {
      started.Open();
      while (true) {  // works until stopped, looking at its cancel flag
        context.ThrowIfCancelled();
        std::this_thread::sleep_for(10ms);
      }
    });
  });
  ASSERT_TRUE(started.Wait());

  runner->Stop();  // returns once the job has ended

  EXPECT_EQ(StateOf(job.id), "failed");
  caller.join();
  EXPECT_NE(outcome.find("interrupted"), std::string::npos) << outcome;
  // A job run after the node stopped is failed without running.
  JobRecord late = Submit(*runner, "", /*start=*/false);
  bool ran = false;
  EXPECT_NE(runner->RunHere(late, [&](JobContext&) { ran = true; }), "");
  EXPECT_FALSE(ran);
  EXPECT_EQ(StateOf(late.id), "failed");
}

TEST_P(JobRunnerTest, CancelInterruptsOneJobOnly) {
  JobRunner runner(*store_, NodeOptions("node-a"));
  Latch both_started;
  Latch finish;
  std::atomic<int> started{0};
  runner.RegisterKind(kKind, KindRunning([&](JobContext& context) {
                        if (++started == 2) both_started.Open();
                        // Works until told to finish, looking at its cancel flag meanwhile.
                        while (!finish.Wait(10ms)) context.ThrowIfCancelled();
                        store_->Write([&](MetadataTransaction& tx) { context.MarkDone(tx); });
                      }));
  JobRecord cancelled = Submit(runner, "project-1");
  JobRecord kept = Submit(runner, "project-2");
  ASSERT_TRUE(both_started.Wait());

  runner.Cancel(cancelled.id);

  EXPECT_EQ(WaitUntilEnded(cancelled.id), "failed");
  finish.Open();
  EXPECT_EQ(WaitUntilEnded(kept.id), "done");
}

INSTANTIATE_TEST_SUITE_P(Backends, JobRunnerTest, ::testing::ValuesIn(kAllStoreBackends),
                         BackendParamName);

}  // namespace
}  // namespace tessera::testing
