package specprog

import (
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine"
)

// extraOptions maps the import and customTimeouts options.
func extraOptions(o Options) ([]engine.ResourceOption, error) {
	var opts []engine.ResourceOption
	if o.Import != "" {
		opts = append(opts, engine.Import(o.Import))
	}
	var t engine.CustomTimeouts
	for _, x := range []struct {
		s string
		d *time.Duration
	}{{o.Timeouts.Create, &t.Create}, {o.Timeouts.Update, &t.Update}, {o.Timeouts.Delete, &t.Delete}} {
		d, err := parseDuration(x.s)
		if err != nil {
			return nil, err
		}
		*x.d = d
	}
	if t != (engine.CustomTimeouts{}) {
		opts = append(opts, engine.Timeouts(t))
	}
	return opts, nil
}

// valueKind maps references, assets and archives:
//
//	{"$ref": "res"}                     a reference to a resource declared earlier
//	{"$textAsset": "text"}              an asset holding text
//	{"$fileAsset": "path"}              the file at path (relative to the workspace)
//	{"$fileArchive": "path"}            a folder or .tar/.tgz/.zip file
//	{"$assetArchive": {"name": asset}}  an archive of assets by name
func (b *builder) valueKind(k string, arg any) (any, error) {
	str, _ := arg.(string)
	switch k {
	case "$ref":
		return b.resource(str)
	case "$textAsset":
		return engine.StringAsset(str), nil
	case "$fileAsset":
		return engine.FileAsset(str), nil
	case "$fileArchive":
		return engine.FileArchive(str), nil
	case "$assetArchive":
		m, ok := arg.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$assetArchive wants an object of assets by name")
		}
		assets := make(map[string]any, len(m))
		for name, v := range m {
			x, err := b.value(v)
			if err != nil {
				return nil, err
			}
			assets[name] = x
		}
		return engine.AssetArchive(assets), nil
	}
	return nil, fmt.Errorf("unknown special value %s: the spec program knows $secret, $output, $id, $ref, $stack, $config, $repeat, $textAsset, $fileAsset, $fileArchive and $assetArchive", k)
}
