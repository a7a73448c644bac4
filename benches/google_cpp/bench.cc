// google/robotstxt's C++ parser on the bench corpus, for scripts/bench-google-cpp.sh: the
// yardstick of issue 18's parse goal, which Cargo cannot build (google/robotstxt is not a
// crate, and its sources are not in this repository: the script compiles them from a checkout
// given to it).
//
//   bench parse ROUNDS CORPUS   googlebot::ParseRobotsTxt over every robotfiles/NAME body
//   bench load 1 CORPUS         only reads the files (callgrind: parse - load = the parser)
//   bench match ROUNDS CORPUS   RobotsMatcher::OneAgentAllowedByRobots(body, "googlebot", url)
//                               for every URL of links/NAME (google/robotstxt parses the file
//                               again for every URL: that is its check)
//   bench first ROUNDS CORPUS   the first verdict per site: OneAgentAllowedByRobots(body,
//                               "googlebot", first URL) for every site of links/NAME with a
//                               URL (parse + one answer; throughput over those sites' bodies,
//                               as benches/parse.rs's group first-verdict counts it)
//   bench first-load 1 CORPUS   only reads the files and the sites' URLs (callgrind: first -
//                               first-load = the first verdicts)
//
// The parse handler counts callbacks (printed, so the work cannot be optimised away), as
// robotstxt's Rust port is driven in benches/parse.rs.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "robots.h"

namespace {

struct CountingHandler : public googlebot::RobotsParseHandler {
  uint64_t calls = 0;
  void HandleRobotsStart() override { ++calls; }
  void HandleRobotsEnd() override { ++calls; }
  void HandleUserAgent(int, absl::string_view) override { ++calls; }
  void HandleAllow(int, absl::string_view) override { ++calls; }
  void HandleDisallow(int, absl::string_view) override { ++calls; }
  void HandleSitemap(int, absl::string_view) override { ++calls; }
  void HandleUnknownAction(int, absl::string_view, absl::string_view) override {
    ++calls;
  }
};

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

double Now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The best and median round, per unit of work.
void Report(const char* what, std::vector<double> secs, double units, bool bytes) {
  std::sort(secs.begin(), secs.end());
  const double best = secs.front();
  const double median = secs[secs.size() / 2];
  for (double s : {best, median}) {
    const char* tag = s == best ? "best  " : "median";
    if (bytes) {
      std::printf("google-cpp %s %s: %.3f ms  %.1f MB/s  %.1f MiB/s\n", what, tag,
                  s * 1e3, units / s / 1e6, units / s / (1024.0 * 1024.0));
    } else {
      std::printf("google-cpp %s %s: %.3f ms  %.3f M/s\n", what, tag, s * 1e3,
                  units / s / 1e6);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s parse|load|match|first|first-load ROUNDS CORPUS\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int rounds = std::max(1, std::atoi(argv[2]));
  const std::string corpus = argv[3];

  const std::vector<std::string> names = ListDir(corpus + "/robotfiles");
  std::vector<std::string> bodies(names.size());
  double total = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!ReadFile(corpus + "/robotfiles/" + names[i], &bodies[i])) {
      std::fprintf(stderr, "cannot read %s\n", names[i].c_str());
      return 2;
    }
    total += bodies[i].size();
  }
  if (names.empty()) {
    std::fprintf(stderr, "no files in %s/robotfiles\n", corpus.c_str());
    return 2;
  }
  std::printf("google-cpp: %zu files, %.0f bytes\n", names.size(), total);
  if (mode == "load") return 0;

  if (mode == "parse") {
    std::vector<double> secs;
    uint64_t calls = 0;
    for (int r = 0; r < rounds; ++r) {
      CountingHandler h;
      const double t0 = Now();
      for (const auto& b : bodies) googlebot::ParseRobotsTxt(b, &h);
      secs.push_back(Now() - t0);
      calls = h.calls;
    }
    std::printf("google-cpp parse: %llu callbacks a round\n", (unsigned long long)calls);
    Report("parse", secs, total, true);
    return 0;
  }

  if (mode == "match" || mode == "first" || mode == "first-load") {
    struct Site {
      size_t body;
      std::vector<std::string> urls;
    };
    std::vector<Site> sites;
    double urls = 0;
    for (size_t i = 0; i < names.size(); ++i) {
      std::string links;
      if (!ReadFile(corpus + "/links/" + names[i], &links)) continue;
      Site s{i, {}};
      std::istringstream in(links);
      std::string line;
      while (std::getline(in, line)) {
        // Trimmed as the Rust benches read them (`str::trim`).
        const size_t b = line.find_first_not_of(" \t\r\n\v\f");
        if (b == std::string::npos) continue;
        line = line.substr(b, line.find_last_not_of(" \t\r\n\v\f") - b + 1);
        s.urls.push_back(line);
      }
      urls += s.urls.size();
      sites.push_back(std::move(s));
    }
    if (mode == "first-load") return 0;
    if (mode == "first") {
      double bytes = 0;
      size_t with_url = 0;
      for (const auto& s : sites) {
        if (s.urls.empty()) continue;
        bytes += bodies[s.body].size();
        ++with_url;
      }
      std::vector<double> secs;
      uint64_t allowed = 0;
      for (int r = 0; r < rounds; ++r) {
        allowed = 0;
        const double t0 = Now();
        for (const auto& s : sites) {
          if (s.urls.empty()) continue;
          googlebot::RobotsMatcher matcher;
          allowed += matcher.OneAgentAllowedByRobots(bodies[s.body], "googlebot", s.urls[0]);
        }
        secs.push_back(Now() - t0);
      }
      std::printf("google-cpp first: %zu sites, %.0f bytes, %llu allowed\n", with_url, bytes,
                  (unsigned long long)allowed);
      Report("first", secs, bytes, true);
      return 0;
    }
    googlebot::RobotsMatcher matcher;
    std::vector<double> secs;
    uint64_t allowed = 0;
    for (int r = 0; r < rounds; ++r) {
      allowed = 0;
      const double t0 = Now();
      for (const auto& s : sites) {
        for (const auto& u : s.urls) {
          allowed += matcher.OneAgentAllowedByRobots(bodies[s.body], "googlebot", u);
        }
      }
      secs.push_back(Now() - t0);
    }
    std::printf("google-cpp match: %zu sites, %.0f URLs, %llu allowed\n", sites.size(),
                urls, (unsigned long long)allowed);
    Report("match", secs, urls, false);
    return 0;
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
