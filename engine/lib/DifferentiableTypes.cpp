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

bool isInEigen(const Decl *D) {
  const NamespaceDecl *Outer = nullptr;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Outer = NS;
  return Outer && Outer->getIdentifier() && Outer->getName() == "Eigen";
}

std::optional<EigenShape> eigenShape(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  const auto *Spec =
      dyn_cast_or_null<ClassTemplateSpecializationDecl>(T->getAsCXXRecordDecl());
  if (!Spec || !Spec->getIdentifier())
    return std::nullopt;
  const auto *NS = dyn_cast<NamespaceDecl>(Spec->getDeclContext());
  if (!NS || !NS->getIdentifier() || NS->getName() != "Eigen" ||
      !NS->getDeclContext()->isTranslationUnit())
    return std::nullopt;
  StringRef Name = Spec->getName();
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if ((Name == "Map" || Name == "Ref") && Args.size() >= 1 &&
      Args[0].getKind() == TemplateArgument::Type) {
    // Map<T, Options, Stride>, Ref<T, Options, Stride> over a Matrix or
    // Array T: the engine reads a view by linear coefficient index, so only
    // views of contiguous coefficients are objects to it: a Map with
    // Eigen's default Stride<0, 0>, a Ref of a vector with its default
    // InnerStride<1> (a Ref binds a copy when the argument is not
    // contiguous).
    QualType Viewed = Args[0].getAsType();
    std::optional<EigenShape> Shape = eigenShape(Viewed);
    if (!Shape || Shape->View)
      return std::nullopt;
    auto StrideIs = [&](StringRef Kind, llvm::ArrayRef<int64_t> Values) {
      if (Args.size() < 3)
        return true; // the default
      if (Args[2].getKind() != TemplateArgument::Type)
        return false;
      const auto *S = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
          Args[2].getAsType()->getAsCXXRecordDecl());
      if (!S || !S->getIdentifier() || S->getName() != Kind)
        return false;
      const TemplateArgumentList &SA = S->getTemplateArgs();
      if (SA.size() != Values.size())
        return false;
      for (unsigned I = 0; I < SA.size(); ++I)
        if (SA[I].getKind() != TemplateArgument::Integral ||
            SA[I].getAsIntegral().getSExtValue() != Values[I])
          return false;
      return true;
    };
    bool Contiguous = Name == "Map" ? StrideIs("Stride", {0, 0})
                                    : Shape->isVector() &&
                                          StrideIs("InnerStride", {1});
    if (!Contiguous)
      return std::nullopt;
    Shape->View = true;
    Shape->Writable = !Viewed.isConstQualified();
    return Shape;
  }
  if (Name != "Matrix" && Name != "Array")
    return std::nullopt;
  // Matrix<Scalar, Rows, Cols, Options, MaxRows, MaxCols>
  if (Args.size() < 4 || Args[0].getKind() != TemplateArgument::Type ||
      Args[1].getKind() != TemplateArgument::Integral ||
      Args[2].getKind() != TemplateArgument::Integral ||
      Args[3].getKind() != TemplateArgument::Integral)
    return std::nullopt;
  EigenShape Shape;
  Shape.Scalar = Args[0].getAsType();
  Shape.Rows = Args[1].getAsIntegral().getSExtValue();
  Shape.Cols = Args[2].getAsIntegral().getSExtValue();
  Shape.RowMajor = Args[3].getAsIntegral().getZExtValue() & 1; // Eigen::RowMajor
  Shape.IsArray = Name == "Array";
  Shape.Plain = T.getUnqualifiedType();
  return Shape;
}

QualType eigenViewedType(QualType T, const EigenShape &Shape) {
  // Map<const VectorXd> as written: its argument keeps the user's alias.
  if (const auto *TST =
          T.getNonReferenceType()->getAs<TemplateSpecializationType>())
    if (!TST->template_arguments().empty() &&
        TST->template_arguments()[0].getKind() == TemplateArgument::Type) {
      QualType A = TST->template_arguments()[0].getAsType();
      if (A.getCanonicalType().getUnqualifiedType() ==
          Shape.Plain.getCanonicalType())
        return A.getUnqualifiedType();
    }
  return Shape.Plain;
}

QualType containerElement(QualType T) {
  QualType Elem, Inner;
  if (std::optional<EigenShape> E = eigenShape(T))
    Elem = E->Scalar;
  else if (!stdContainer(T, Elem))
    return QualType();
  // A std::vector or std::array of a class of reals (not one holding
  // pointers or containers) is storage of such objects, as an array of
  // them is; one of std::vectors or std::arrays of reals (rows of a
  // matrix) holds those containers.
  if (!Elem->isArithmeticType() &&
      !(!eigenShape(T) && isDifferentiableRecord(Elem) &&
        !pointsToReals(Elem) && containerElement(Elem).isNull()) &&
      !(!eigenShape(T) && !eigenShape(Elem) && stdContainer(Elem, Inner) &&
        !containerElement(Elem).isNull()))
    return QualType();
  return Elem;
}

QualType containerIteratorElement(QualType T) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  // libstdc++'s and libc++'s iterators of contiguous containers wrap a
  // pointer to the elements.
  if (!Spec || !Spec->getIdentifier() ||
      (Spec->getName() != "__normal_iterator" &&
       Spec->getName() != "__wrap_iter"))
    return QualType();
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() < 1 || Args[0].getKind() != TemplateArgument::Type ||
      !Args[0].getAsType()->isPointerType())
    return QualType();
  return Args[0].getAsType()->getPointeeType();
}

std::optional<uint64_t> containerFixedSize(QualType T) {
  if (std::optional<EigenShape> E = eigenShape(T)) {
    if (E->Rows < 0 || E->Cols < 0)
      return std::nullopt;
    return uint64_t(E->Rows) * uint64_t(E->Cols);
  }
  QualType Elem;
  const ClassTemplateSpecializationDecl *Spec = stdContainer(T, Elem);
  if (!Spec || Spec->getName() != "array")
    return std::nullopt;
  const TemplateArgumentList &Args = Spec->getTemplateArgs();
  if (Args.size() < 2 || Args[1].getKind() != TemplateArgument::Integral)
    return std::nullopt;
  return Args[1].getAsIntegral().getZExtValue();
}

/// Types as the user writes them in C++ (`vector<double>`, `A<B<int>>`).
static PrintingPolicy userPolicy() {
  LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.Bool = true;
  PrintingPolicy Policy(LO);
  Policy.SuppressTagKeyword = true;
  return Policy;
}

/// A class of the standard library or its implementation (an iterator, a
/// view): its pointers are not the user's spans.
static bool isLibraryClass(const CXXRecordDecl *RD) {
  if (RD->isInStdNamespace() ||
      (RD->getIdentifier() && RD->getName().starts_with("_")))
    return true;
  for (const DeclContext *DC = RD->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC);
        NS && NS->getIdentifier() && NS->getName().starts_with("__"))
      return true;
  return false;
}

namespace {
struct RecordShape;
} // namespace
static RecordShape shapeOf(QualType T);

namespace {
/// What a class's data members hold, walked recursively.
struct RecordShape {
  bool HasFloating = false;
  bool PointsToReals = false; ///< a member is a pointer to const reals
  /// A member is a std::vector or std::array of reals, or of classes of
  /// them (the first one's name).
  std::string Container;
  std::string Problem; ///< the first member (or base) that is not data

  void visit(QualType T, const std::string &Path, unsigned Depth) {
    if (!Problem.empty())
      return;
    T = T.getCanonicalType();
    while (const auto *AT = dyn_cast<ConstantArrayType>(T.getTypePtr()))
      T = AT->getElementType().getCanonicalType();
    QualType Elem;
    if (std::optional<EigenShape> E = eigenShape(T))
      Elem = E->Scalar;
    if ((!Elem.isNull() || stdContainer(T, Elem)) &&
        (Elem->isRealFloatingType() ||
         (!Elem->isArithmeticType() && !isClassWithoutReals(Elem)))) {
      if (Path.empty() && !containerElement(T).isNull()) {
        HasFloating = true;
        return;
      }
      // A std::vector or std::array member: storage the object holds, read
      // and written where it is (contract v2: the adjoint's member is a
      // container of the same size).
      if (!eigenShape(T) && !containerElement(T).isNull()) {
        HasFloating = true;
        if (Container.empty())
          Container = Path;
        return;
      }
      // An Eigen Matrix or Array member: coefficients the object holds. One
      // of fixed size is storage inside the object, like an array member;
      // one of dynamic size is held like a std::vector member.
      if (std::optional<EigenShape> E = eigenShape(T);
          E && !E->View && Elem->isRealFloatingType()) {
        HasFloating = true;
        if (!containerFixedSize(T) && Container.empty())
          Container = Path;
        return;
      }
      PrintingPolicy Policy = userPolicy();
      std::string Name = T.getUnqualifiedType().getAsString(Policy);
      if (std::optional<EigenShape> E = eigenShape(T); E && E->View) {
        Problem = "member '" + Path + "' is a '" + Name +
                  "': Eigen views inside classes are not followed yet";
        return;
      }
      if (Path.empty() && Elem->isRecordType() &&
          containerElement(Elem).isNull() &&
          !shapeOf(Elem.getCanonicalType()).Container.empty())
        Problem = "its elements are '" +
                  Elem.getUnqualifiedType().getAsString(Policy) +
                  "', a class holding a container (member '" +
                  shapeOf(Elem.getCanonicalType()).Container +
                  "'), and containers of such classes are not followed "
                  "yet, where a class with a plain array member ('double "
                  "p[2]') is";
      else if (Path.empty())
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
    if (RD && isInEigen(RD)) {
      PrintingPolicy Policy = userPolicy();
      Problem = "'" + T.getUnqualifiedType().getAsString(Policy) +
                "' is an Eigen view or expression; of Eigen's types only "
                "Matrix and Array objects, Maps with the default stride and "
                "Refs of vectors are followed yet";
      return;
    }
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
    if (RD->getNumVBases() || RD->isPolymorphic()) {
      Problem = (Path.empty() ? std::string("it") : "'" + Path + "'") +
                " has virtual base classes or virtual functions";
      return;
    }
    // A base class's members are members of the object (spelled s.m too,
    // so a member may not hide one of a base's).
    for (const CXXBaseSpecifier &B : RD->bases()) {
      const auto *BD = B.getType()->getAsCXXRecordDecl();
      std::string Sub = (Path.empty() ? "" : Path + ".") +
                        B.getType().getUnqualifiedType().getAsString(
                            userPolicy());
      if (BD && BD->hasDefinition())
        for (const FieldDecl *F : RD->fields())
          if (!BD->getDefinition()->lookup(F->getDeclName()).empty()) {
            Problem = "member '" + F->getNameAsString() +
                      "' hides a member of its base class '" + Sub + "'";
            return;
          }
      visit(B.getType(), Sub, Depth + 1);
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
        // A pointer to objects of reals hides derivatives as one to reals
        // does (their shadows would need shadow objects).
        if (To->isRecordType() && !isClassWithoutReals(To)) {
          HasFloating = true;
          Problem = "member '" + Sub + "' is a " +
                    (FT->isReferenceType() ? "reference" : "pointer") +
                    " to objects holding real numbers";
          return;
        }
        if (To->isRealFloatingType()) {
          HasFloating = true;
          // A pointer to const reals is an input the object shows, like a
          // pointer parameter (contract v2: the adjoint's member points to
          // shadow memory).
          if (FT->isPointerType() && To.isConstQualified() &&
              !isLibraryClass(RD)) {
            PointsToReals = true;
            continue;
          }
          Problem = "member '" + Sub + "' is a " +
                    (FT->isReferenceType() ? "reference" : "pointer") +
                    " to " + (FT->isReferenceType() ? "" : "non-const ") +
                    "real numbers";
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

bool pointsToReals(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  while (!elementType(T).isNull())
    T = elementType(T).getCanonicalType();
  if (!T->isRecordType())
    return false;
  RecordShape Shape = shapeOf(T);
  return Shape.PointsToReals || !Shape.Container.empty();
}

static bool trivialMemberType(QualType T, bool Default);

/// RD's bases and members are all of the kind below.
static bool membersActTrivially(const CXXRecordDecl *RD, bool Default) {
  if (RD->isUnion() || RD->isPolymorphic() || RD->getNumVBases() ||
      RD->isInStdNamespace() || isInEigen(RD))
    return false;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (!trivialMemberType(B.getType(), Default))
      return false;
  for (const FieldDecl *F : RD->fields())
    if ((Default && F->hasInClassInitializer()) ||
        F->getType()->isReferenceType() ||
        !trivialMemberType(F->getType(), Default))
      return false;
  return true;
}

/// Members of this kind are left alone by the compiler-written default
/// constructor (Default) or copied number by number by its copy.
static bool trivialMemberType(QualType T, bool Default) {
  T = T.getCanonicalType();
  while (const auto *AT = dyn_cast<ConstantArrayType>(T.getTypePtr()))
    T = AT->getElementType().getCanonicalType();
  if (T->isScalarType())
    return true;
  if (std::optional<EigenShape> E = eigenShape(T))
    return !E->View && containerFixedSize(T).has_value();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return false;
  RD = RD->getDefinition();
  if (Default ? RD->hasTrivialDefaultConstructor()
              : RD->hasTrivialCopyConstructor() &&
                    RD->hasTrivialCopyAssignment())
    return true;
  // Its own special members are the compiler's, of the same kind.
  if (Default && (RD->hasUserProvidedDefaultConstructor() ||
                  !RD->hasDefaultConstructor()))
    return false;
  if (!Default && (RD->hasUserDeclaredCopyConstructor() ||
                   RD->hasUserDeclaredCopyAssignment() ||
                   RD->hasUserDeclaredMoveConstructor() ||
                   RD->hasUserDeclaredMoveAssignment()))
    return false;
  return membersActTrivially(RD, Default);
}

bool actsTrivially(const CXXMethodDecl *M) {
  if (M->isTrivial())
    return true;
  if (!M->isImplicit() && !M->isExplicitlyDefaulted())
    return false;
  const auto *Ctor = dyn_cast<CXXConstructorDecl>(M);
  bool Default = Ctor && Ctor->isDefaultConstructor();
  bool Copy = (Ctor && (Ctor->isCopyConstructor() ||
                        Ctor->isMoveConstructor())) ||
              M->isCopyAssignmentOperator() || M->isMoveAssignmentOperator();
  return (Default || Copy) && membersActTrivially(M->getParent(), Default);
}

std::string containerMember(QualType T) {
  T = T.getNonReferenceType().getCanonicalType();
  while (!elementType(T).isNull())
    T = elementType(T).getCanonicalType();
  return T->isRecordType() ? shapeOf(T).Container : "";
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

bool isEmptyFunctionObject(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->hasDefinition() && RD->isEmpty() && !RD->isLambda() &&
         !RD->isInStdNamespace() && !isInEigen(RD);
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
         (containerElement(E)->isRealFloatingType() ||
          containerElement(E)->isRecordType())))
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
