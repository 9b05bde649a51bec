// Fluxion: source-to-source automatic differentiation for C++.
//
// Include this header in code that uses the annotations; it provides the
// runtime helpers, the derivative rules of <cmath>, checkpointing and memory
// accounting. Compiled without the Fluxion plugin, the annotations are
// ignored and no derivatives are generated.
#ifndef FLUXION_FLUXION_HPP
#define FLUXION_FLUXION_HPP

#include <fluxion/tape.hpp>
#include <fluxion/checkpoint.hpp>
#include <fluxion/revolve.hpp>
#include <fluxion/memory.hpp>
#include <fluxion/helpers.hpp>
#include <fluxion/math.hpp>
#include <fluxion/algorithm.hpp>
#include <fluxion/minmax.hpp>
#include <fluxion/callsite.hpp>
// The rules of Eigen's solves, when Eigen is included first (else include
// <fluxion/eigen.hpp> after it).
#ifdef EIGEN_CORE_H
#include <fluxion/eigen.hpp>
#endif

#define FLUXION_VERSION_MAJOR 0
#define FLUXION_VERSION_MINOR 1

#endif // FLUXION_FLUXION_HPP
