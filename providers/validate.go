package providers

import (
	"fmt"
	"regexp"
	"strconv"
)

// tokenRE is what an API token given in an HTTP header can be.
var tokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{20,200}$`)

// APIToken is a Question.Validate of a cloud's API token: 20 to 200
// letters, digits, _ or - (what an HTTP header can carry); what says what
// it must be ("a Linode API token").
func APIToken(what string) func(string) error {
	return func(v string) error {
		if !tokenRE.MatchString(v) {
			return fmt.Errorf("must be %s: 20 to 200 letters, digits, _ or -", what)
		}
		return nil
	}
}

// NodeCount is a Question.Validate of a number of nodes from 1 to max.
func NodeCount(max int) func(string) error {
	return func(v string) error {
		i, err := strconv.Atoi(v)
		if err != nil || i < 1 || i > max {
			return fmt.Errorf("must be a whole number of nodes from 1 to %d, not %q", max, v)
		}
		return nil
	}
}
