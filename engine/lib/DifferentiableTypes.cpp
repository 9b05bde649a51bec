//===- DifferentiableTypes.cpp - Which types carry derivatives ------------===//
//
// Floating scalars carry derivatives, and so does memory made of them:
// arrays, pointers, and classes whose data members are such values (a
// `struct Particle { double x, y, z, m; }`). Member access lowers to the IR's
// Member lvalue, so a class needs no handling beyond this classification.
//
//===----------------------------------------------------------------------===//
#include "fluxion/engine/Lowering.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"

using namespace clang;

namespace fluxion {

bool isDifferentiableScalar(QualType T) { return T->isRealFloatingType(); }

QualType elementType(QualType T) {
  if (const auto *PT = T->getAs<PointerType>())
    return PT->getPointeeType();
  if (const auto *AT = T->getAsArrayTypeUnsafe())
    return AT->getElementType();
  return QualType();
}

namespace {
/// What a class's data members hold, walked recursively.
struct RecordShape {
  bool HasFloating = false;
  std::string Problem; ///< the first member (or base) that is not data

  void visit(QualType T, const std::string &Path, unsigned Depth) {
    if (!Problem.empty())
      return;
    T = T.getCanonicalType();
    while (const auto *AT = dyn_cast<ConstantArrayType>(T.getTypePtr()))
      T = AT->getElementType().getCanonicalType();
    if (T->isRealFloatingType()) {
      HasFloating = true;
      return;
    }
    if (T->isArithmeticType() || T->isEnumeralType())
      return;
    const auto *RD = T->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition() || Depth > 16) {
      Problem = "member '" + Path + "' has type '" + T.getAsString() +
                "', which derivatives cannot follow";
      return;
    }
    RD = RD->getDefinition();
    if (RD->isUnion()) {
      Problem = (Path.empty() ? std::string("it") : "'" + Path + "'") +
                " is a union";
      return;
    }
    if (RD->getNumBases() || RD->isPolymorphic()) {
      Problem = (Path.empty() ? std::string("it") : "'" + Path + "'") +
                " has base classes or virtual functions";
      return;
    }
    for (const FieldDecl *F : RD->fields()) {
      std::string Sub = (Path.empty() ? "" : Path + ".") + F->getNameAsString();
      QualType FT = F->getType();
      if (FT->isReferenceType() || FT->isPointerType()) {
        // A pointer to other data (a name, a handle) is left alone; one to
        // reals would hide derivatives.
        QualType To = FT->getPointeeType();
        while (!elementType(To).isNull())
          To = elementType(To);
        if (To->isRealFloatingType()) {
          HasFloating = true;
          Problem = "member '" + Sub + "' is a " +
                    (FT->isReferenceType() ? "reference" : "pointer") +
                    " to real numbers";
          return;
        }
        continue;
      }
      visit(FT, Sub, Depth + 1);
    }
  }
};
} // namespace

static RecordShape shapeOf(QualType T) {
  RecordShape Shape;
  Shape.visit(T, "", 0);
  return Shape;
}

bool isDifferentiableRecord(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (!T->isRecordType())
    return false;
  RecordShape Shape = shapeOf(T);
  return Shape.HasFloating && Shape.Problem.empty();
}

std::string recordProblem(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  if (!T->isRecordType())
    return "";
  return shapeOf(T).Problem;
}

/// True when T holds reals somewhere: a floating member, element or base
/// member, or a pointer or reference to memory that holds them.
static bool holdsReals(QualType T, unsigned Depth) {
  T = T.getNonReferenceType().getCanonicalType();
  while (!elementType(T).isNull())
    T = elementType(T).getCanonicalType();
  if (T->isRealFloatingType())
    return true;
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (!RD->hasDefinition() || Depth > 16)
    return true; // cannot tell
  RD = RD->getDefinition();
  for (const CXXBaseSpecifier &B : RD->bases())
    if (holdsReals(B.getType(), Depth + 1))
      return true;
  for (const FieldDecl *F : RD->fields())
    if (holdsReals(F->getType(), Depth + 1))
      return true;
  return false;
}

bool isClassWithoutReals(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  return T->isRecordType() && !holdsReals(T, 0);
}

bool isDifferentiableType(QualType T) {
  T = T.getNonReferenceType();
  for (QualType E = T; !E.isNull(); E = elementType(E))
    if (isDifferentiableScalar(E) || isDifferentiableRecord(E))
      return true;
  return false;
}

bool mayBeDifferentiable(QualType T) {
  T = T.getNonReferenceType();
  for (QualType E = T; !E.isNull(); E = elementType(E))
    if (E->isDependentType() && elementType(E).isNull())
      return true;
  return isDifferentiableType(T);
}

} // namespace fluxion
