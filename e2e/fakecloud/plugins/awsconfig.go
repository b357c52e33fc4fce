package plugins

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// The messages of the real aws provider when it has no credentials or no
// region.
const (
	noCredentials = "No valid credential sources found.\n" +
		"Please see https://www.pulumi.com/registry/packages/aws/installation-configuration/ for more information about providing credentials."
	noRegion = "missing region information\n" +
		"Make sure you have set your AWS region, e.g. `pulumi config set aws:region us-west-2`."
)

// regionPattern is what an AWS region looks like (us-east-1, us-gov-west-1).
var regionPattern = regexp.MustCompile(`^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-[0-9]$`)

// awsSettings resolves the region and checks that credentials exist, as
// the real provider does before any call: the region from config region,
// AWS_REGION, AWS_DEFAULT_REGION or the profile in the shared config file;
// credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, config
// accessKey and secretKey, or the profile (config profile, AWS_PROFILE or
// "default") in the shared credentials or config files.
func awsSettings(cfg config) (region string, err error) {
	profile := firstOf(cfg["profile"], os.Getenv("AWS_PROFILE"))
	named := profile != ""
	if !named {
		profile = "default"
	}
	credFiles := cfg.list("sharedCredentialsFiles")
	if len(credFiles) == 0 {
		credFiles = []string{firstOf(os.Getenv("AWS_SHARED_CREDENTIALS_FILE"), homeFile(".aws/credentials"))}
	}
	confFiles := cfg.list("sharedConfigFiles")
	if len(confFiles) == 0 {
		confFiles = []string{firstOf(os.Getenv("AWS_CONFIG_FILE"), homeFile(".aws/config"))}
	}
	creds, found := iniProfile(credFiles, profile, false)
	conf, confFound := iniProfile(confFiles, profile, true)
	region = firstOf(cfg["region"], os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION"), conf["region"])
	switch {
	case region == "":
		return "", fmt.Errorf("%s", noRegion)
	case !regionPattern.MatchString(region) && !cfg.bool("skipRegionValidation"):
		return "", fmt.Errorf("invalid AWS Region: %s", region)
	}
	switch {
	case os.Getenv("AWS_ACCESS_KEY_ID") != "" && os.Getenv("AWS_SECRET_ACCESS_KEY") != "":
	case cfg["accessKey"] != "" && cfg["secretKey"] != "":
	case creds["aws_access_key_id"] != "" && creds["aws_secret_access_key"] != "":
	case conf["aws_access_key_id"] != "" && conf["aws_secret_access_key"] != "":
	case named && !found && !confFound:
		return "", fmt.Errorf("failed to get shared config profile, %s", profile)
	default:
		return "", fmt.Errorf("%s", noCredentials)
	}
	return region, nil
}

// iniProfile returns the keys of profile in the first of files that has
// it (in a config file the section is "profile <name>", but "default").
func iniProfile(files []string, profile string, configFile bool) (map[string]string, bool) {
	section := profile
	if configFile && profile != "default" {
		section = "profile " + profile
	}
	for _, f := range files {
		path, err := expandHome(f)
		if err != nil || path == "" {
			continue
		}
		if keys, ok := iniSection(path, section); ok {
			return keys, true
		}
	}
	return map[string]string{}, false
}

// iniSection reads the keys of [section] in the INI file at path.
func iniSection(path, section string) (map[string]string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	keys, in, found := map[string]string{}, false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			in = strings.TrimSpace(line[1:len(line)-1]) == section
			found = found || in
		case in:
			if k, v, ok := strings.Cut(line, "="); ok {
				keys[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	}
	return keys, found
}

// firstOf returns the first non-empty string of vs.
func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// failure returns err as a check failure of no property ("" when nil).
func failure(err error) []plugin.CheckFailure {
	if err == nil {
		return nil
	}
	return []plugin.CheckFailure{{Reason: err.Error()}}
}
