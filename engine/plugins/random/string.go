package random

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"

	"golang.org/x/crypto/bcrypt"

	"github.com/runnerhq/runner/engine/resource"
)

// Character classes of RandomString and RandomPassword.
const (
	lowerChars   = "abcdefghijklmnopqrstuvwxyz"
	upperChars   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	numericChars = "0123456789"
	// specialChars is the default special set, as in Pulumi's provider.
	specialChars = "!@#$%&*()-_=+[]{}<>:?"
)

var stringBools = []string{"special", "upper", "lower", "numeric"}
var stringMins = []string{"minUpper", "minLower", "minNumeric", "minSpecial"}

// checkString validates length, special, upper, lower, number/numeric,
// minUpper, minLower, minNumeric, minSpecial and overrideSpecial, filling
// true for the booleans and 0 for the minimums.
func checkString(m resource.PropertyMap) error {
	if v, ok := m["length"]; !ok || v == nil {
		return errors.New(`property "length" is required: the number of characters to generate`)
	}
	if err := checkNumberAlias(m); err != nil {
		return err
	}
	allKnown := true
	for _, k := range stringBools {
		if !known(m, k) {
			allKnown = false
			continue
		}
		b, err := m.Bool(k, true)
		if err != nil {
			return err
		}
		m[k] = b
	}
	if known(m, "numeric") {
		m["number"] = m["numeric"]
	}
	sum := 0
	for _, k := range append([]string{"length"}, stringMins...) {
		if !known(m, k) {
			allKnown = false
			continue
		}
		n, err := m.Int(k, 0)
		if err != nil {
			return err
		}
		least := 0
		if k == "length" {
			least = 1
		}
		if n < least {
			return fmt.Errorf("property %q must be at least %d, not %d", k, least, n)
		}
		m[k] = float64(n)
		if k != "length" {
			sum += n
		}
	}
	if known(m, "overrideSpecial") {
		if _, err := m.String("overrideSpecial", ""); err != nil {
			return err
		}
	} else {
		allKnown = false
	}
	if !allKnown {
		return nil
	}
	length, _ := m.Int("length", 0)
	if sum > length {
		return fmt.Errorf(`property "length" (%d) must be at least the sum of minUpper, minLower, minNumeric and minSpecial (%d)`, length, sum)
	}
	if pool(m) == "" && length > sum {
		return errors.New(`properties "special", "upper", "lower" and "numeric" are all false: there are no characters to choose from`)
	}
	return nil
}

// checkNumberAlias reconciles "number", Pulumi's deprecated name, with "numeric".
func checkNumberAlias(m resource.PropertyMap) error {
	num, hasNum := m["number"]
	if !hasNum || num == nil {
		return nil
	}
	if !known(m, "number") {
		m["numeric"] = num // unknown as well until up
		return nil
	}
	b, err := m.Bool("number", true)
	if err != nil {
		return err
	}
	if v, ok := m["numeric"]; ok && v != nil && known(m, "numeric") {
		n, err := m.Bool("numeric", true)
		if err != nil {
			return err
		}
		if n != b {
			return errors.New(`properties "number" and "numeric" disagree; "number" is the deprecated name of "numeric": set only "numeric"`)
		}
	}
	m["numeric"] = b
	return nil
}

// pool is every character allowed by the class switches.
func pool(m resource.PropertyMap) string {
	var s string
	for _, c := range []struct{ key, chars string }{
		{"lower", lowerChars}, {"upper", upperChars}, {"numeric", numericChars}, {"special", special(m)},
	} {
		if on, _ := m.Bool(c.key, true); on {
			s += c.chars
		}
	}
	return s
}

func special(m resource.PropertyMap) string {
	if s, _ := m.String("overrideSpecial", ""); s != "" {
		return s
	}
	return specialChars
}

// createString draws the string: the minimum of each class first, the rest
// from the allowed pool, then shuffled. A password's result is a Secret and
// it gets a bcryptHash (secret too).
func createString(in resource.PropertyMap, password, preview bool) (string, resource.PropertyMap, error) {
	outs := copyMap(in)
	if preview {
		outs["result"] = wrap(resource.Computed{}, password)
		if password {
			outs["bcryptHash"] = resource.Secret{Element: resource.Computed{}}
		}
		return "", outs, nil
	}
	s, err := drawString(in)
	if err != nil {
		return "", nil, err
	}
	outs["result"] = wrap(s, password)
	id := "none"
	if password {
		hash, err := bcrypt.GenerateFromPassword([]byte(s), bcrypt.DefaultCost)
		if err != nil {
			return "", nil, fmt.Errorf("hashing the password with bcrypt: %w", err)
		}
		outs["bcryptHash"] = resource.Secret{Element: string(hash)}
	} else {
		id = s
	}
	return id, outs, nil
}

func wrap(v any, secret bool) any {
	if secret {
		return resource.Secret{Element: v}
	}
	return v
}

func drawString(in resource.PropertyMap) (string, error) {
	length, err := in.Int("length", 0)
	if err != nil {
		return "", err
	}
	var out []rune
	for _, c := range []struct{ key, chars string }{
		{"minUpper", upperChars}, {"minLower", lowerChars}, {"minNumeric", numericChars}, {"minSpecial", special(in)},
	} {
		n, err := in.Int(c.key, 0)
		if err != nil {
			return "", err
		}
		if out, err = appendRandom(out, c.chars, n); err != nil {
			return "", err
		}
	}
	if rest := length - len(out); rest > 0 {
		if out, err = appendRandom(out, pool(in), rest); err != nil {
			return "", err
		}
	}
	if err := shuffle(out); err != nil {
		return "", err
	}
	return string(out), nil
}

func appendRandom(out []rune, chars string, n int) ([]rune, error) {
	set := []rune(chars)
	if n > 0 && len(set) == 0 {
		return nil, errors.New("no characters to choose from")
	}
	for range n {
		i, err := randIndex(len(set))
		if err != nil {
			return nil, err
		}
		out = append(out, set[i])
	}
	return out, nil
}

func shuffle(b []rune) error {
	for i := len(b) - 1; i > 0; i-- {
		j, err := randIndex(i + 1)
		if err != nil {
			return err
		}
		b[i], b[j] = b[j], b[i]
	}
	return nil
}

func randIndex(n int) (int, error) {
	i, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		return 0, fmt.Errorf("reading random bytes: %w", err)
	}
	return int(i.Int64()), nil
}
