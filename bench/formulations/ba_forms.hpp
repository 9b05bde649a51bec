// Bundle adjustment (ADBench; see bench/adbench/ba.hpp) written two ways:
// bench/adbench/ba.cpp (helpers over fixed-size arrays) and ba_inline.cpp
// (one function of scalars). Both are differentiated per observation by a
// generated f_jacobian; the hand-written Jacobian of both is
// bench/adbench/ba_manual.cpp, which already computes the block in one
// function of scalars (the arithmetic of the inline formulation).
#ifndef FLUXION_FORMULATIONS_BA_FORMS_HPP
#define FLUXION_FORMULATIONS_BA_FORMS_HPP

void ba_inline(const double cam[11], const double X[3], double w,
               const double feat[2], double err[2]);
void ba_inline_jacobian(const double cam[11], const double X[3], double w,
                        const double feat[2], double err[2], double *J);

#endif // FLUXION_FORMULATIONS_BA_FORMS_HPP
