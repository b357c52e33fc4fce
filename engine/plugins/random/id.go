package random

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"

	"github.com/runnerhq/runner/engine/resource"
)

// checkID validates byteLength (required, at least 1) and prefix.
func checkID(m resource.PropertyMap) error {
	if v, ok := m["byteLength"]; !ok || v == nil {
		return errors.New(`property "byteLength" is required: the number of random bytes to generate`)
	}
	if m.Known("byteLength") {
		n, err := m.Int("byteLength", 0)
		if err != nil {
			return err
		}
		if n < 1 {
			return fmt.Errorf(`property "byteLength" must be at least 1, not %d`, n)
		}
		m["byteLength"] = float64(n)
	}
	if m.Known("prefix") {
		if _, err := m.String("prefix", ""); err != nil {
			return err
		}
	}
	return nil
}

// createID draws byteLength bytes and renders them as hex, b64Std, b64Url
// and dec, each with the prefix in front. The ID is the unprefixed b64Url,
// as in Pulumi.
func createID(in resource.PropertyMap, preview bool) (string, resource.PropertyMap, error) {
	outs := in.Copy(4)
	if preview {
		for _, k := range []string{"hex", "b64Std", "b64Url", "dec"} {
			outs[k] = resource.Computed{}
		}
		return "", outs, nil
	}
	n, err := in.Int("byteLength", 0)
	if err != nil {
		return "", nil, err
	}
	prefix, err := in.String("prefix", "")
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", nil, fmt.Errorf("reading random bytes: %w", err)
	}
	url := base64.RawURLEncoding.EncodeToString(b)
	outs["hex"] = prefix + hex.EncodeToString(b)
	outs["b64Std"] = prefix + base64.StdEncoding.EncodeToString(b)
	outs["b64Url"] = prefix + url
	outs["dec"] = prefix + new(big.Int).SetBytes(b).String()
	return url, outs, nil
}
