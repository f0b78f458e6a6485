// The viewer's live session on the fake backend, stepped by hand (no thread, no ImGui): it
// verifies before it times, reports the chosen kernel beside the dense reference and the
// baseline, keeps a wrong kernel off the plot, and follows a changed request.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/model/error.hpp"
#include "fake_backend.hpp"
#include "ui/live_session.hpp"

using namespace tileskip;
using namespace tileskip::ui;
using tileskip::testing::FakeBackend;
using tileskip::testing::FakeFaults;

namespace {

SessionRequest fakeRequest(const std::string& kernel, double density = 0.4, const char* generator = "segments") {
  SessionRequest r;
  r.backend = "fake";
  r.kernel = kernel;
  r.spec.m = r.spec.n = r.spec.k = 96;
  r.spec.generator = generator;
  r.spec.densityA = r.spec.densityB = density;
  r.spec.seed = 3;
  return r;
}

LiveSession::BackendOpener fakeOpener(FakeFaults faults = {}) {
  return [faults](const std::string& name) -> std::unique_ptr<Backend> {
    if (name == "fake") return std::make_unique<FakeBackend>(faults);
    throw UnavailableError("no backend '" + name + "' in this test");
  };
}

// Steps until every series has its samples. How many steps that takes depends on how long each
// launch takes (the session shares time between series), so the limit is a time, not a count.
void stepUntilSettled(LiveSession& session, int samples) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!session.settled(samples) && std::chrono::steady_clock::now() < deadline) session.step();
  ASSERT_TRUE(session.settled(samples));
}

}  // namespace

TEST(LiveSession, VerifiesThenTimesKernelDenseReferenceAndBaseline) {
  LiveSession session(fakeOpener());
  EXPECT_FALSE(session.step());  // nothing asked yet
  session.request(fakeRequest("joint-8x32"));
  stepUntilSettled(session, 4);
  SessionSnapshot s = session.snapshot();
  EXPECT_TRUE(s.caughtUp);
  EXPECT_EQ(s.device.name, "fake device");
  ASSERT_EQ(s.series.size(), 3u);
  EXPECT_EQ(s.series[0].kernel, "joint-8x32");
  EXPECT_EQ(s.series[1].kernel, kDenseReferenceKernel);
  EXPECT_EQ(s.series[2].kernel, "cublas");  // the fake implements the vendor baseline
  for (const Series& series : s.series) {
    EXPECT_EQ(series.state, Series::State::Verified) << series.kernel << ": " << series.message;
    EXPECT_GE(series.samples.size(), 4u);
  }
  // The fake's dense kernel reports 2 ms: GFLOPS are 2·M·N·K over the device time.
  EXPECT_NEAR(s.series[1].samples.back().gflops, 2.0 * 96 * 96 * 96 / 2e6, 1e-9);

  // Its skipping kernel takes time in proportion to the joint density, so the measured speedup
  // is the predicted one and the skip efficiency is 1.
  SkipFigures f = skipFigures(s);
  ASSERT_TRUE(s.analysis);
  EXPECT_DOUBLE_EQ(f.jointDensity, kernelWork(kernelInfo("joint-8x32"), generateProblem(s.served.spec).a,
                                              generateProblem(s.served.spec).b).jointDensity);
  ASSERT_TRUE(f.measuredSpeedup.has_value());
  EXPECT_NEAR(*f.measuredSpeedup, f.predictedSpeedup, 1e-9);
  EXPECT_NEAR(*f.skipEfficiency, 1.0, 1e-9);
  EXPECT_GT(f.predictedSpeedup, 1.5);
  EXPECT_GE(f.predictedSpeedup, f.loadBound);
}

TEST(LiveSession, AWrongKernelGetsNoSamples) {
  LiveSession session(fakeOpener({.skipSingleProducts = true}));
  session.request(fakeRequest("joint-8x32", 0.02, "uniform"));  // many K-blocks hold a single product
  stepUntilSettled(session, 3);
  SessionSnapshot s = session.snapshot();
  ASSERT_EQ(s.series[0].kernel, "joint-8x32");
  EXPECT_EQ(s.series[0].state, Series::State::Failed);
  EXPECT_NE(s.series[0].message.find("wrong C"), std::string::npos) << s.series[0].message;
  EXPECT_TRUE(s.series[0].samples.empty());
  EXPECT_FALSE(skipFigures(s).measuredSpeedup.has_value());
  EXPECT_EQ(s.series[1].state, Series::State::Verified);  // the dense kernel is still right
}

// A kernel the device refuses for this problem (lavapipe's loop limit) is refused, with the
// device's reason, not FAILED: the lesson must never call a device's limit a wrong answer.
TEST(LiveSession, AKernelTheDeviceRefusesIsRefusedNotFailed) {
  LiveSession session(fakeOpener({.refused = {"joint-8x32"}}));
  session.request(fakeRequest("joint-8x32"));
  stepUntilSettled(session, 2);
  SessionSnapshot s = session.snapshot();
  ASSERT_EQ(s.series[0].kernel, "joint-8x32");
  EXPECT_EQ(s.series[0].state, Series::State::Refused);
  EXPECT_STREQ(seriesStateName(s.series[0].state), "refused");
  EXPECT_EQ(s.series[0].message, tileskip::testing::fakeRefusal(kernelInfo("joint-8x32")));
  EXPECT_TRUE(s.series[0].samples.empty());
  EXPECT_EQ(s.series[1].state, Series::State::Verified);
  EXPECT_GE(s.series[1].samples.size(), 2u);
  EXPECT_STREQ(seriesStateName(Series::State::Failed), "failed");
  EXPECT_STREQ(seriesStateName(Series::State::Unavailable), "not run");
}

TEST(LiveSession, KernelsTheBackendLacksAreAnalysedButNotTimed) {
  LiveSession session(fakeOpener());
  session.request(fakeRequest("b-warp"));  // not in the fake backend
  stepUntilSettled(session, 2);
  SessionSnapshot s = session.snapshot();
  ASSERT_TRUE(s.analysis);
  EXPECT_EQ(s.analysis->kernel->id, "b-warp");
  EXPECT_LT(s.analysis->skipMap.stats.jointDensity, 1.0);
  EXPECT_EQ(s.series[0].state, Series::State::Unavailable);
  EXPECT_NE(s.series[0].message.find("does not implement b-warp"), std::string::npos);
}

TEST(LiveSession, FollowsTheLatestRequest) {
  LiveSession session(fakeOpener());
  session.request(fakeRequest("joint-8x32", 0.9));
  stepUntilSettled(session, 2);
  double dense = session.snapshot().analysis->skipMap.stats.jointDensity;

  double requestedAt = session.snapshot().now;
  session.request(fakeRequest("joint-8x32", 0.2));
  EXPECT_FALSE(session.snapshot().caughtUp);
  stepUntilSettled(session, 2);
  SessionSnapshot s = session.snapshot();
  EXPECT_DOUBLE_EQ(s.served.spec.densityA, 0.2);
  EXPECT_LT(s.analysis->skipMap.stats.jointDensity, dense);
  // The old problem's samples are gone: every sample left was taken after the new request.
  // (How many there are depends on launch times, so the test does not count them.)
  for (const Series& series : s.series) {
    for (const Sample& sample : series.samples) EXPECT_GE(sample.seconds, requestedAt) << series.kernel;
  }

  SessionRequest paused = fakeRequest("joint-8x32", 0.2);
  paused.measuring = false;
  session.request(paused);
  session.step();
  EXPECT_FALSE(session.step());  // paused: nothing to launch
}

TEST(LiveSession, AnUnavailableBackendSaysWhy) {
  LiveSession session(fakeOpener());
  SessionRequest r = fakeRequest("joint-8x32");
  r.backend = "quantum";
  session.request(r);
  stepUntilSettled(session, 1);
  SessionSnapshot s = session.snapshot();
  EXPECT_NE(s.backendError.find("no backend 'quantum'"), std::string::npos);
  ASSERT_TRUE(s.analysis);  // the skip map needs no device
  for (const Series& series : s.series) EXPECT_EQ(series.state, Series::State::Unavailable);
}

TEST(LiveSession, RunsOnItsOwnThread) {
  LiveSession session(fakeOpener());
  session.request(fakeRequest("joint-8x32"));
  session.start();
  for (int i = 0; i < 400 && !session.settled(3); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  session.stop();
  EXPECT_TRUE(session.settled(3));
}

// The offscreen viewer's picture may not depend on how long drawing took after the last timed
// run: with the clock held, a snapshot's clock is its newest sample, however late it is taken.
TEST(LiveSession, ADeviceClockSumsTheReportedTimesAndSharesThemOutTheSameWayEveryRun) {
  // Every sample, series by series, in the order they landed: what the offscreen viewer draws.
  auto sessionSamples = [](int slowFirstRuns) {
    LiveSession session(fakeOpener());
    session.useDeviceClock();
    EXPECT_EQ(session.snapshot().now, 0.0);  // no run yet
    EXPECT_TRUE(session.snapshot().deviceClock);
    session.request(fakeRequest("joint-8x32"));
    // A busy machine: the first runs take far longer on the wall clock than the device reports.
    for (int i = 0; i < slowFirstRuns; ++i) {
      session.step();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    stepUntilSettled(session, 6);
    return session.snapshot();
  };
  SessionSnapshot calm = sessionSamples(0), busy = sessionSamples(6);
  ASSERT_EQ(calm.series.size(), 3u);
  double total = 0.0, newest = 0.0;
  for (std::size_t i = 0; i < calm.series.size(); ++i) {
    SCOPED_TRACE(calm.series[i].kernel);
    ASSERT_EQ(calm.series[i].samples.size(), busy.series[i].samples.size());
    for (std::size_t j = 0; j < calm.series[i].samples.size(); ++j) {
      EXPECT_EQ(calm.series[i].samples[j].seconds, busy.series[i].samples[j].seconds) << "sample " << j;
      total += calm.series[i].samples[j].milliseconds / 1000.0;
    }
    newest = std::max(newest, calm.series[i].samples.back().seconds);
  }
  // The clock is the sum of the reported times and stands at the newest sample.
  EXPECT_NEAR(calm.now, total, 1e-12);
  EXPECT_EQ(calm.now, newest);

  LiveSession moving(fakeOpener());  // a window's session: its clock is the wall clock and runs on
  moving.request(fakeRequest("joint-8x32"));
  stepUntilSettled(moving, 1);
  double first = moving.snapshot().now;
  EXPECT_FALSE(moving.snapshot().deviceClock);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GE(moving.snapshot().now, first + 0.04);
}
