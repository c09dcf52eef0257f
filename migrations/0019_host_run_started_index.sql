-- The frontier counts the host runs workers began in the last seconds, each tick, to pace its
-- wakes to them (src/domain/frontier/host-wake-room.ts): without an index that count reads every host.
CREATE INDEX hosts_run_started ON hosts (run_started_at);
