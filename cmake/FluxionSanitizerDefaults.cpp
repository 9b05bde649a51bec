// Default AddressSanitizer options of the host programs built with
// FLUXION_SANITIZE: cmake/FluxionSanitizers.cmake compiles this file into
// each program that links the instrumented engine (fluxion-gen, the engine
// tests). ASAN_OPTIONS set by the caller still apply on top of them.
//
// allow_user_poisoning=0: compiled with ASan, LLVM's headers poison the
// unused part of their allocators' slabs (llvm/Support/Allocator.h and
// Recycler.h under LLVM_ADDRESS_SANITIZER_BUILD), and our code inlines them.
// The libclang-cpp and libLLVM we link are not instrumented: they allocate
// from the same slabs without unpoisoning, and ASan then reports their writes
// as use-after-poison (seen in clang::Preprocessor::LookUpIdentifierInfo on
// an IdentifierTable slab that the engine's IdentifierTable::get started).
// Without manual poisoning the allocators behave as in the library; ASan's
// own checks (heap, stack, globals, leaks) are unaffected.
extern "C" __attribute__((visibility("default"), used)) const char *
__asan_default_options() {
  return "allow_user_poisoning=0";
}
