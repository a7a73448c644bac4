//! napi-build: the linker arguments a Node addon needs on macOS and Windows (none on Linux,
//! where Node's symbols are resolved when the addon is loaded).
fn main() {
    napi_build::setup();
}
