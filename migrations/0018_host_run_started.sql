-- When a host's workflow run last began its work (its first claim, which reads the host's record).
-- A host woken (`woken_at`) whose run has not begun since waits for a worker to run its first
-- workflow task: every worker slot is busy, or no worker polls the task queue. The progress line
-- and `crawler status` say so (crawl-waits-repository.ts), a wait nothing else would show.
ALTER TABLE hosts ADD COLUMN run_started_at timestamptz;
CREATE INDEX hosts_woken ON hosts (woken_at) WHERE workflow_active;
