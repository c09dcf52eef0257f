-- Small bodies are stored in packs (src/storage/object-store/body-packer.ts): a body key is then
-- `packs/...gz#bytes=<first>-<last>`. `crawler bodies prune` deletes a pack once no body row and
-- no fetch points into it, which it finds by key range (from 'pack#' to 'pack$'). Both indexes
-- compare in the "C" collation, the byte order those ranges assume, whatever the database's own;
-- the prune's queries name it too.
CREATE INDEX IF NOT EXISTS bodies_object_key ON bodies (object_key COLLATE "C");
DROP INDEX IF EXISTS fetches_body_key;
CREATE INDEX fetches_body_key ON fetches (body_key COLLATE "C") WHERE body_key IS NOT NULL;
