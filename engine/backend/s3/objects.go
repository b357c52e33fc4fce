package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	s3api "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/runnerhq/runner/engine/backend/bucket"
)

// Objects is a bucket.Objects on an S3 bucket, under a prefix.
type Objects struct {
	client *s3api.Client
	loc    *Location
}

var _ bucket.Objects = (*Objects)(nil)

// Describe names the bucket (the URL without secrets).
func (o *Objects) Describe() string { return o.loc.Redacted }

func (o *Objects) key(k string) string {
	if o.loc.Prefix == "" {
		return k
	}
	return o.loc.Prefix + "/" + k
}

// classify maps S3's refusals onto the bucket package's errors.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "PreconditionFailed", "ConditionalRequestConflict":
			return fmt.Errorf("%w (%s)", bucket.ErrPrecondition, api.ErrorCode())
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%w (%s)", bucket.ErrNotExist, api.ErrorCode())
		}
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case http.StatusPreconditionFailed, http.StatusConflict:
			return fmt.Errorf("%w (HTTP %d)", bucket.ErrPrecondition, re.HTTPStatusCode())
		case http.StatusNotFound:
			var nb *types.NoSuchBucket
			if !errors.As(err, &nb) {
				return fmt.Errorf("%w (HTTP 404)", bucket.ErrNotExist)
			}
		}
	}
	return err
}

// serverTime is the Date of the response that carried meta (zero when
// unknown).
func serverTime(meta middleware.Metadata) time.Time {
	t, _ := awsmiddleware.GetServerTime(meta)
	return t
}

// Get reads an object.
func (o *Objects) Get(ctx context.Context, key string) (*bucket.Object, error) {
	out, err := o.client.GetObject(ctx, &s3api.GetObjectInput{Bucket: &o.loc.Bucket, Key: aws.String(o.key(key))})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", key, classify(err))
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", key, err)
	}
	obj := &bucket.Object{Data: data, ETag: aws.ToString(out.ETag), Now: serverTime(out.ResultMetadata)}
	if out.LastModified != nil {
		obj.Modified = *out.LastModified
	}
	return obj, nil
}

// Put writes an object under cond.
func (o *Objects) Put(ctx context.Context, key string, data []byte, cond bucket.Cond) (string, error) {
	in := &s3api.PutObjectInput{Bucket: &o.loc.Bucket, Key: aws.String(o.key(key)), Body: bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))), ContentType: aws.String(contentType(key))}
	if cond.IfNoneMatch {
		in.IfNoneMatch = aws.String("*")
	}
	if cond.IfMatch != "" {
		in.IfMatch = aws.String(cond.IfMatch)
	}
	out, err := o.client.PutObject(ctx, in)
	err = classify(err)
	if cond.IfMatch != "" && errors.Is(err, bucket.ErrNotExist) {
		// S3 answers a write conditional on the ETag of an object that is
		// gone with 404 NoSuchKey: the condition is unmet all the same (a
		// renewal of a lock cleared meanwhile must learn it is lost).
		err = fmt.Errorf("%w (the object is gone: %w)", bucket.ErrPrecondition, err)
	}
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", key, err)
	}
	return aws.ToString(out.ETag), nil
}

func contentType(key string) string {
	switch {
	case strings.HasSuffix(key, ".json"):
		return "application/json"
	case strings.HasSuffix(key, ".yaml"):
		return "application/yaml"
	}
	return "application/octet-stream"
}

// Delete removes an object, only while its ETag is ifMatch when set.
func (o *Objects) Delete(ctx context.Context, key, ifMatch string) error {
	in := &s3api.DeleteObjectInput{Bucket: &o.loc.Bucket, Key: aws.String(o.key(key))}
	if ifMatch != "" {
		in.IfMatch = aws.String(ifMatch)
	}
	_, err := o.client.DeleteObject(ctx, in)
	err = classify(err)
	if errors.Is(err, bucket.ErrNotExist) && ifMatch == "" {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting %s: %w", key, err)
	}
	return nil
}

// DeleteMany removes objects, a thousand per request.
func (o *Objects) DeleteMany(ctx context.Context, keys []string) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		ids := make([]types.ObjectIdentifier, n)
		for i, k := range keys[:n] {
			ids[i] = types.ObjectIdentifier{Key: aws.String(o.key(k))}
		}
		out, err := o.client.DeleteObjects(ctx, &s3api.DeleteObjectsInput{Bucket: &o.loc.Bucket,
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
		if err != nil {
			return fmt.Errorf("deleting %d objects: %w", n, classify(err))
		}
		for _, e := range out.Errors {
			if aws.ToString(e.Code) != "NoSuchKey" {
				return fmt.Errorf("deleting %s: %s", aws.ToString(e.Key), aws.ToString(e.Message))
			}
		}
		keys = keys[n:]
	}
	return nil
}

// List lists the objects under prefix, sorted by key.
func (o *Objects) List(ctx context.Context, prefix string) ([]bucket.ObjectInfo, error) {
	full := o.key(prefix)
	p := s3api.NewListObjectsV2Paginator(o.client, &s3api.ListObjectsV2Input{Bucket: &o.loc.Bucket, Prefix: &full})
	var out []bucket.ObjectInfo
	strip := len(full) - len(prefix)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", prefix, classify(err))
		}
		for _, c := range page.Contents {
			info := bucket.ObjectInfo{Key: aws.ToString(c.Key)[strip:], ETag: aws.ToString(c.ETag), Size: aws.ToInt64(c.Size)}
			if c.LastModified != nil {
				info.Modified = *c.LastModified
			}
			out = append(out, info)
		}
	}
	return out, nil
}

// Identity names the bucket prefix the objects are kept in
// (Location.Identity).
func (o *Objects) Identity() string { return o.loc.Identity() }
