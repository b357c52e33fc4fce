package s3

import (
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want Location
	}{
		{"s3://b", Location{Bucket: "b"}},
		{"s3://b/team/state?region=eu-west-1", Location{Bucket: "b", Prefix: "team/state", Region: "eu-west-1"}},
		// Pulumi's older names, and an endpoint without a scheme.
		{"s3://b?endpoint=minio.local:9000&s3ForcePathStyle=true&disableSSL=true", Location{Bucket: "b", Endpoint: "http://minio.local:9000", PathStyle: true, ChecksumWhenRequired: true}},
		// gocloud's names; awssdk is ignored.
		{"s3://b?endpoint=https://s3.example&use_path_style=true&awssdk=v2&profile=ci", Location{Bucket: "b", Endpoint: "https://s3.example", PathStyle: true, Profile: "ci", ChecksumWhenRequired: true}},
		{"s3://b?endpoint=s3.example&request_checksum_calculation=when_supported", Location{Bucket: "b", Endpoint: "https://s3.example"}},
	} {
		got, err := ParseURL(tt.url)
		if err != nil {
			t.Fatalf("ParseURL(%s): %v", tt.url, err)
		}
		got.Redacted = ""
		if *got != tt.want {
			t.Errorf("ParseURL(%s) = %+v, want %+v", tt.url, *got, tt.want)
		}
	}
}

// TestParseURLRefusesAndRedacts: bad URLs are refused naming the problem,
// and neither a key in the user information nor the value of an unknown
// parameter reaches the message.
func TestParseURLRefusesAndRedacts(t *testing.T) {
	for _, tt := range []struct{ url, want, secret string }{
		{"s3:///prefix", "names no bucket", ""},
		{"s3://AKIA:topsecret@b?region=x&aws_secret_access_key=topsecret", "unknown parameters aws_secret_access_key", "topsecret"},
		{"s3://b?use_path_style=maybe", "not true or false", ""},
		{"gs://b", "not an s3:// URL", ""},
		{"s3://b?endpoint=http://u:endpointsecret@127.0.0.1:9000&region=x", "user information in its endpoint", "endpointsecret"},
		{"s3://b?endpoint=u:endpointsecret@minio.local&region=x", "user information in its endpoint", "endpointsecret"},
	} {
		_, err := ParseURL(tt.url)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseURL(%s) = %v, want an error saying %q", tt.url, err, tt.want)
		}
		if tt.secret != "" && err != nil && strings.Contains(err.Error(), tt.secret) {
			t.Errorf("ParseURL(%s) shows the secret: %v", tt.url, err)
		}
	}
}

// TestOpenURLErrorHidesSecrets: the error of a URL that does not parse as
// runner's names it without the key pasted into it.
func TestOpenURLErrorHidesSecrets(t *testing.T) {
	_, err := OpenURL(t.Context(), "s3://AKIA:topsecret@b?aws_secret_access_key=topsecret2")
	if err == nil || strings.Contains(err.Error(), "topsecret") || !strings.Contains(err.Error(), "s3://") {
		t.Fatalf("OpenURL = %v, want an error naming the URL without its secrets", err)
	}
}
