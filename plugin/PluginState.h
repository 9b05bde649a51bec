//===- PluginState.h - Per-compilation state of the plugin ------*- C++ -*-===//
//
// Attribute handlers are global registry objects; they reach the engine of
// the compilation they run in through this map, keyed by its Sema.
//
//===----------------------------------------------------------------------===//
#ifndef FLUXION_PLUGIN_PLUGINSTATE_H
#define FLUXION_PLUGIN_PLUGINSTATE_H

#include "fluxion/engine/Differentiator.h"

namespace fluxion {

Differentiator *differentiatorFor(clang::Sema &S);
void registerDifferentiator(clang::Sema &S, Differentiator *D);
void unregisterDifferentiator(clang::Sema &S);

} // namespace fluxion

#endif
