package random

import (
	"crypto/sha256"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strconv"

	"github.com/runnerhq/runner/engine/resource"
)

// checkInteger validates min and max (required, min <= max) and seed.
func checkInteger(m resource.PropertyMap) error {
	for _, k := range []string{"min", "max"} {
		if v, ok := m[k]; !ok || v == nil {
			return fmt.Errorf("property %q is required: the range is from min to max, both included", k)
		}
	}
	if known(m, "seed") {
		if _, err := m.String("seed", ""); err != nil {
			return err
		}
	}
	if !known(m, "min") || !known(m, "max") {
		return nil
	}
	lo, err := m.Int("min", 0)
	if err != nil {
		return err
	}
	hi, err := m.Int("max", 0)
	if err != nil {
		return err
	}
	if lo > hi {
		return fmt.Errorf(`property "min" (%d) must not be greater than "max" (%d)`, lo, hi)
	}
	return nil
}

// createInteger draws an integer in [min, max]: from crypto/rand, or
// reproducibly from the seed when one is given. The ID is the number. A
// preview predicts the result when the seed or the range fixes it.
func createInteger(in resource.PropertyMap, preview bool) (string, resource.PropertyMap, error) {
	outs := copyMap(in)
	if preview {
		outs["result"] = resource.Computed{}
		if !known(in, "min") || !known(in, "max") || !known(in, "seed") {
			return "", outs, nil
		}
		// A seed, or a range of one number, makes the result known.
		seed, _ := in.String("seed", "")
		lo, _ := in.Int("min", 0)
		hi, _ := in.Int("max", 0)
		if seed == "" && lo != hi {
			return "", outs, nil
		}
	}
	lo, err := in.Int("min", 0)
	if err != nil {
		return "", nil, err
	}
	hi, err := in.Int("max", 0)
	if err != nil {
		return "", nil, err
	}
	seed, err := in.String("seed", "")
	if err != nil {
		return "", nil, err
	}
	if lo > hi {
		return "", nil, errors.New(`property "min" must not be greater than "max"`)
	}
	var off int
	if seed != "" || lo == hi {
		off = int(mrand.New(mrand.NewChaCha8(sha256.Sum256([]byte(seed)))).Int64N(int64(hi - lo + 1)))
	} else if off, err = randIndex(hi - lo + 1); err != nil {
		return "", nil, err
	}
	n := lo + off
	outs["result"] = float64(n)
	return strconv.Itoa(n), outs, nil
}
