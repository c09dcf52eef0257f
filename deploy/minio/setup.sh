#!/bin/sh
# The crawler's own MinIO user, made by docker-compose.yml's minio-setup with the root account
# (which no crawler process holds): the bucket, a policy that reads, writes and lists that
# bucket's objects and nothing else, and the user CRAWLER_S3_ACCESS_KEY holding only that policy.
# Idempotent: a second run sets the same password and policy again.
set -eu
: "${MINIO_ROOT_USER:?}" "${MINIO_ROOT_PASSWORD:?}" "${CRAWLER_S3_ACCESS_KEY:?}" "${CRAWLER_S3_SECRET_KEY:?}" "${S3_BUCKET:?}"
endpoint="${MINIO_ENDPOINT:-http://minio:9000}"
policy="crawler-${S3_BUCKET}"

if [ "$CRAWLER_S3_ACCESS_KEY" = "$MINIO_ROOT_USER" ]; then
  echo "minio-setup: CRAWLER_S3_ACCESS_KEY is MinIO's root user: give the crawler a user of its own" >&2
  exit 1
fi

tries=0
until mc alias set crawler-setup "$endpoint" "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" > /dev/null 2>&1; do
  tries=$((tries + 1))
  if [ "$tries" -ge 120 ]; then
    echo "minio-setup: MinIO at $endpoint did not take the root credentials in 120 s (MINIO_ROOT_USER, MINIO_ROOT_PASSWORD)" >&2
    exit 1
  fi
  sleep 1
done

mc mb --ignore-existing "crawler-setup/$S3_BUCKET"

policy_file="$(mktemp)"
trap 'rm -f "$policy_file"' EXIT
cat > "$policy_file" << POLICY
{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": ["s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads"],
      "Resource": ["arn:aws:s3:::${S3_BUCKET}"]
    },
    {
      "Effect": "Allow",
      "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts"],
      "Resource": ["arn:aws:s3:::${S3_BUCKET}/*"]
    }
  ]
}
POLICY
mc admin policy create crawler-setup "$policy" "$policy_file"
mc admin user add crawler-setup "$CRAWLER_S3_ACCESS_KEY" "$CRAWLER_S3_SECRET_KEY"
if ! attached="$(mc admin policy attach crawler-setup "$policy" --user "$CRAWLER_S3_ACCESS_KEY" 2>&1)"; then
  case "$attached" in
    *"already in effect"*) ;;
    *)
      echo "$attached" >&2
      exit 1
      ;;
  esac
fi
echo "minio-setup: bucket $S3_BUCKET; user $CRAWLER_S3_ACCESS_KEY holds policy $policy (that bucket's objects only)"
