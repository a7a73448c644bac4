//! `crawlgate serve`'s politeness as a fleet meets it: arrival times recorded at a test site,
//! two workers, two replicas on one redis-server.
