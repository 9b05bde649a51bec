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
#include "clang/AST/DeclTemplate.h"

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

/// std::vector<T> or std::array<T, N> (any allocator), and its T.
static const ClassTemplateSpecializationDecl *stdContainer(QualType T,
                                                          QualType &Elem) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
  if (!Spec || !Spec->isInStdNamespace() || !Spec->getIdentifier())
    return nullptr;
  StringRef Name = Spec->getName();
  if (Name != "vector" && Name != "array")
    return nullptr;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() < 1 || Args[0].getKind() != TemplateArgument::Type)
    return nullptr;
  Elem = Args[0].getAsType();
  return Spec;
}

QualType containerElement(QualType T) {
  QualType Elem;
  if (!stdContainer(T, Elem) || !Elem->isArithmeticType())
    return QualType();
  return Elem;
}

std::optional<uint64_t> containerFixedSize(QualType T) {
  QualType Elem;
  const ClassTemplateSpecializationDecl *Spec = stdContainer(T, Elem);
  if (!Spec || Spec->getName() != "array")
    return std::nullopt;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() < 2 || Args[1].getKind() != TemplateArgument::Integral)
    return std::nullopt;
  return Args[1].getAsIntegral().getZExtValue();
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
    QualType Elem;
    if (stdContainer(T, Elem) &&
        (Elem->isRealFloatingType() ||
         (!Elem->isArithmeticType() && !isClassWithoutReals(Elem)))) {
      if (Path.empty() && Elem->isRealFloatingType()) {
        HasFloating = true;
        return;
      }
      PrintingPolicy Policy{LangOptions()};
      Policy.SuppressTagKeyword = true;
      Policy.Bool = true;
      std::string Name = T.getUnqualifiedType().getAsString(Policy);
      if (Path.empty())
        Problem = "its elements are '" +
                  Elem.getUnqualifiedType().getAsString(Policy) +
                  "': containers of containers or of classes are not "
                  "followed yet";
      else
        Problem = "member '" + Path + "' is a '" + Name +
                  "': containers inside classes are not followed yet";
      return;
    }
    if (T->isRealFloatingType()) {
      HasFloating = true;
      return;
    }
    if (T->isArithmeticType() || T->isEnumeralType())
      return;
    const auto *RD = T->getAsCXXRecordDecl();
    if (!RD || !RD->hasDefinition() || Depth > 16) {
      Problem = Path.empty() ? "'" + T.getUnqualifiedType().getAsString() +
                                   "' is not defined at this point"
                             : "member '" + Path + "' has type '" +
                                   T.getAsString() +
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
  if (!T->isRecordType() || isClassWithoutReals(T))
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
  // A lambda's captures are constants of its derivatives (the call-site
  // form on a lambda): its closure is data.
  if (RD->isLambda())
    return false;
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
    if (isDifferentiableScalar(E) || isDifferentiableRecord(E) ||
        (!containerElement(E).isNull() &&
         containerElement(E)->isRealFloatingType()))
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
