// Package home finds aem's install root: the folder that holds the ONNX
// Runtime library (lib/<os>-<arch>/libonnxruntime.so.1) and the models
// (models/<name>/), laid out by scripts/setup and `make install`.
//
// Search lists the places a binary looks, in order:
//
//  1. $AEM_HOME, when it is set: the only place then;
//  2. beside the binary: <prefix>/share/aem for a binary in <prefix>/bin
//     (`make install`), then the .aem folder of the checkout a binary in
//     <checkout>/bin was built in (`make build`);
//  3. ./.aem in the working directory (`scripts/setup`);
//  4. the user cache directory, os.UserCacheDir()/aem
//     (`scripts/setup --user`).
//
// Find picks the first place that holds what the caller needs and, when none
// does, says what was missing in each. Writable picks where a command that
// installs something (a pulled model, the embedding cache) writes: never the
// install beside the binary, which belongs to `make install`.
//
// The package only reads the file system (os.Stat); its callers pass the
// environment in, so tests build their own.
package home
