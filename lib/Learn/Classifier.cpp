//===- Classifier.cpp - Training an MLP policy ----------------------------===//
//
// Minibatch Adam on weighted binary cross-entropy (or a regression loss); see
// mlgo/Learn/Classifier.h for the math and the determinism contract.
// Examples are columns: a layer computes Z = W A + b for a whole batch.
// The parameters live in one flat vector (Parameters.h's order: each layer's
// weights row-major, then its biases) that Eigen maps row-major, so the
// optimizer, the checkpoint and the export all see the same layout.
//
//===----------------------------------------------------------------------===//

#include "mlgo/Learn/Classifier.h"

#include "mlgo/Support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

using namespace llvm;

namespace mlgo {
namespace learn {

using RowMajorMap = Eigen::Map<
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using ConstRowMajorMap =
    Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic,
                                   Eigen::RowMajor>>;

namespace {
struct LayerShape {
  size_t In, Out;
  Activation Act;
  size_t Offset; ///< Of the weights in theta; the biases follow them.
};
} // namespace

struct ClassifierTrainer::Impl {
  std::vector<LayerShape> Shapes;
  Eigen::MatrixXd X;    ///< Normalized features, one column per row.
  Eigen::VectorXd Y, W; ///< Labels (or targets) and weights.
  std::vector<uint32_t> Order;
  std::vector<std::string> FeatureNames;
};

static void activate(Activation A, Eigen::MatrixXd &Z) {
  switch (A) {
  case Activation::Linear:
    return;
  case Activation::Relu:
    Z = Z.cwiseMax(0.0);
    return;
  case Activation::Tanh:
    Z = Z.array().tanh().matrix();
    return;
  case Activation::Sigmoid:
    Z = Z.unaryExpr([](double V) { return 1.0 / (1.0 + std::exp(-V)); });
    return;
  case Activation::Exp:
    Z = Z.array().exp().matrix();
    return;
  }
}

/// dL/dZ from dL/dA, given the activation's output A.
static void backActivate(Activation Act, const Eigen::MatrixXd &A,
                         Eigen::MatrixXd &G) {
  switch (Act) {
  case Activation::Linear:
    return;
  case Activation::Relu:
    G = (A.array() > 0.0).select(G, 0.0);
    return;
  case Activation::Tanh:
    G = (G.array() * (1.0 - A.array().square())).matrix();
    return;
  case Activation::Sigmoid:
    G = (G.array() * A.array() * (1.0 - A.array())).matrix();
    return;
  case Activation::Exp:
    G = (G.array() * A.array()).matrix();
    return;
  }
}

static double sigmoid(double Z) {
  if (Z >= 0)
    return 1.0 / (1.0 + std::exp(-Z));
  double E = std::exp(Z);
  return E / (1.0 + E);
}

/// -[y log sigmoid(z) + (1 - y) log(1 - sigmoid(z))], without overflow.
static double crossEntropy(double Z, double Y) {
  return std::max(Z, 0.0) - Y * Z + std::log1p(std::exp(-std::fabs(Z)));
}

StringRef toString(LossKind L) {
  switch (L) {
  case LossKind::CrossEntropy:
    return "cross_entropy";
  case LossKind::SquaredError:
    return "squared_error";
  case LossKind::AbsoluteError:
    return "absolute_error";
  }
  return "?";
}

/// The loss of one row with logit \p Z and label or target \p Y.
static double rowLoss(LossKind L, double Z, double Y) {
  switch (L) {
  case LossKind::CrossEntropy:
    return crossEntropy(Z, Y);
  case LossKind::SquaredError:
    return 0.5 * (Z - Y) * (Z - Y);
  case LossKind::AbsoluteError:
    return std::fabs(Z - Y);
  }
  return 0;
}

/// d rowLoss / d Z.
static double rowLossGradient(LossKind L, double Z, double Y) {
  switch (L) {
  case LossKind::CrossEntropy:
    return sigmoid(Z) - Y;
  case LossKind::SquaredError:
    return Z - Y;
  case LossKind::AbsoluteError:
    return Z > Y ? 1.0 : (Z < Y ? -1.0 : 0.0);
  }
  return 0;
}

/// Forward pass over the columns of \p X; Acts[0] = X, Acts[l+1] = output of
/// layer l.
static void forward(const std::vector<LayerShape> &Shapes,
                    const std::vector<double> &Theta, const Eigen::MatrixXd &X,
                    std::vector<Eigen::MatrixXd> &Acts) {
  Acts.resize(Shapes.size() + 1);
  Acts[0] = X;
  for (size_t L = 0; L < Shapes.size(); ++L) {
    const LayerShape &S = Shapes[L];
    ConstRowMajorMap Wm(Theta.data() + S.Offset, S.Out, S.In);
    Eigen::Map<const Eigen::VectorXd> B(Theta.data() + S.Offset + S.In * S.Out,
                                        S.Out);
    Eigen::MatrixXd Z = Wm * Acts[L];
    Z.colwise() += B;
    activate(S.Act, Z);
    Acts[L + 1] = std::move(Z);
  }
}

ClassifierTrainer::ClassifierTrainer(const ClassifierOptions &Options)
    : Options(Options), Opt(0, Options.Optimizer), R(Options.Seed),
      P(std::make_unique<Impl>()) {}

ClassifierTrainer::~ClassifierTrainer() = default;

Expected<std::unique_ptr<ClassifierTrainer>>
ClassifierTrainer::create(const Dataset &D, const ClassifierOptions &O,
                          ArrayRef<double> Targets) {
  if (D.empty())
    return makeError("cannot train a classifier on an empty dataset");
  bool Regression = O.Loss != LossKind::CrossEntropy;
  if (Regression && Targets.size() != D.size())
    return makeError("a " + toString(O.Loss) + " loss needs one target per " +
                     "row: got " + Twine(Targets.size()) + " for " +
                     Twine(D.size()) + " rows");
  if (!Regression && !Targets.empty())
    return makeError("cross-entropy trains on the dataset's labels, not on "
                     "targets");
  for (double T : Targets)
    if (!std::isfinite(T))
      return makeError("a regression target is not finite");
  if (O.BatchSize == 0)
    return makeError("batch size must be positive");
  size_t F = D.getNumFeatures();
  if (F == 0)
    return makeError("the dataset has no features");
  for (size_t H : O.Hidden)
    if (H == 0)
      return makeError("hidden layers must have at least one unit");
  if (!O.InputSpecs.empty()) {
    if (O.InputSpecs.size() != F)
      return makeError("got " + Twine(O.InputSpecs.size()) +
                       " input specs for " + Twine(F) + " features");
    for (const TensorSpec &S : O.InputSpecs)
      if (S.getElementCount() != 1)
        return makeError("input '" + S.name() +
                         "' is not a scalar; features are one value each");
  }
  std::unique_ptr<ClassifierTrainer> T(new ClassifierTrainer(O));
  NormalizationOptions NO = O.Normalization;
  if (O.ResidualFeature) {
    int64_t Idx = D.getFeatureIndex(*O.ResidualFeature);
    if (Idx < 0)
      return makeError("residual feature '" + *O.ResidualFeature +
                       "' is not a feature of the dataset");
    NO.RawFeatures.push_back(static_cast<size_t>(Idx));
  }
  for (size_t I : NO.RawFeatures)
    if (I >= F)
      return makeError("raw feature index " + Twine(I) + " is out of range");
  T->Scalings = fitNormalization(D, NO);

  Impl &P = *T->P;
  P.FeatureNames = D.getFeatureNames();
  size_t N = D.size();
  P.X.resize(F, N);
  P.Y.resize(N);
  P.W.resize(N);
  std::vector<double> Buf(F);
  for (size_t I = 0; I < N; ++I) {
    normalizeRow(T->Scalings, D.row(I), Buf.data());
    for (size_t J = 0; J < F; ++J)
      P.X(J, I) = Buf[J];
    P.Y(I) = Regression ? Targets[I] : D.label(I);
    P.W(I) = D.weight(I);
  }

  // Shapes, then the initial weights in theta order.
  std::vector<size_t> Sizes{F};
  Sizes.insert(Sizes.end(), O.Hidden.begin(), O.Hidden.end());
  Sizes.push_back(1);
  size_t Offset = 0;
  for (size_t L = 0; L + 1 < Sizes.size(); ++L) {
    bool Last = L + 2 == Sizes.size();
    LayerShape S{Sizes[L], Sizes[L + 1],
                 Last ? Activation::Linear : O.HiddenActivation, Offset};
    P.Shapes.push_back(S);
    Offset += S.In * S.Out + S.Out;
  }
  T->Theta.assign(Offset, 0.0);
  for (const LayerShape &S : P.Shapes) {
    double Std = S.Act == Activation::Relu
                     ? std::sqrt(2.0 / static_cast<double>(S.In))
                     : std::sqrt(2.0 / static_cast<double>(S.In + S.Out));
    for (size_t K = 0; K < S.In * S.Out; ++K)
      T->Theta[S.Offset + K] = Std * T->R.normal();
  }
  T->Opt = Optimizer(Offset, O.Optimizer);
  P.Order.resize(N);
  return T;
}

EpochStats ClassifierTrainer::runEpoch() {
  Impl &Im = *P;
  size_t N = Im.Y.size();
  // A fresh permutation of the identity each epoch: the epoch's order
  // depends only on the generator, not on the previous epoch's order.
  std::iota(Im.Order.begin(), Im.Order.end(), 0u);
  R.shuffle(Im.Order);

  std::vector<double> Grad(Theta.size());
  std::vector<Eigen::MatrixXd> Acts;
  size_t F = Im.X.rows();
  for (size_t Start = 0; Start < N; Start += Options.BatchSize) {
    size_t B = std::min(Options.BatchSize, N - Start);
    Eigen::MatrixXd Xb(F, B);
    Eigen::VectorXd Yb(B), Wb(B);
    for (size_t K = 0; K < B; ++K) {
      uint32_t I = Im.Order[Start + K];
      Xb.col(K) = Im.X.col(I);
      Yb(K) = Im.Y(I);
      Wb(K) = Im.W(I);
    }
    double SumW = Wb.sum();
    if (!(SumW > 0))
      continue; // Nothing in this batch counts.
    forward(Im.Shapes, Theta, Xb, Acts);
    // dL/dZ of the output layer.
    Eigen::MatrixXd G(1, B);
    for (size_t K = 0; K < B; ++K)
      G(0, K) = Wb(K) *
                rowLossGradient(Options.Loss, Acts.back()(0, K), Yb(K)) / SumW;
    for (size_t L = Im.Shapes.size(); L-- > 0;) {
      const LayerShape &S = Im.Shapes[L];
      RowMajorMap GW(Grad.data() + S.Offset, S.Out, S.In);
      Eigen::Map<Eigen::VectorXd> GB(Grad.data() + S.Offset + S.In * S.Out,
                                     S.Out);
      ConstRowMajorMap Wm(Theta.data() + S.Offset, S.Out, S.In);
      GW.noalias() = G * Acts[L].transpose();
      if (Options.L2 != 0)
        GW += Options.L2 * Wm;
      GB = G.rowwise().sum();
      if (L == 0)
        break;
      Eigen::MatrixXd GA = Wm.transpose() * G;
      backActivate(Im.Shapes[L - 1].Act, Acts[L], GA);
      G = std::move(GA);
    }
    Opt.step(Theta, Grad);
  }
  ++Epoch;
  EpochStats Stats = evaluate();
  if (Options.OnEpoch)
    Options.OnEpoch(Stats);
  return Stats;
}

void ClassifierTrainer::run() {
  while (!isDone())
    runEpoch();
}

/// Loss and accuracy of the columns of \p X, in chunks so the activations
/// stay small.
static EpochStats measure(const std::vector<LayerShape> &Shapes,
                          const std::vector<double> &Theta,
                          const Eigen::MatrixXd &X, const Eigen::VectorXd &Y,
                          const Eigen::VectorXd &W, LossKind TheLoss,
                          double Threshold) {
  constexpr Eigen::Index Chunk = 4096;
  double Loss = 0, Correct = 0, SumW = 0;
  std::vector<Eigen::MatrixXd> Acts;
  for (Eigen::Index Start = 0; Start < X.cols(); Start += Chunk) {
    Eigen::Index B = std::min(Chunk, X.cols() - Start);
    forward(Shapes, Theta, X.middleCols(Start, B), Acts);
    for (Eigen::Index K = 0; K < B; ++K) {
      double Z = Acts.back()(0, K), Yk = Y(Start + K), Wk = W(Start + K);
      Loss += Wk * rowLoss(TheLoss, Z, Yk);
      if (TheLoss == LossKind::CrossEntropy && (Z > Threshold) == (Yk == 1.0))
        Correct += Wk;
      SumW += Wk;
    }
  }
  EpochStats S;
  S.Loss = SumW > 0 ? Loss / SumW : 0;
  S.Accuracy = SumW > 0 ? Correct / SumW : 0;
  return S;
}

EpochStats ClassifierTrainer::evaluate() const {
  EpochStats S = measure(P->Shapes, Theta, P->X, P->Y, P->W, Options.Loss,
                         Options.Threshold);
  S.Epoch = Epoch;
  return S;
}

EpochStats ClassifierTrainer::evaluate(const Dataset &D) const {
  assert(D.getNumFeatures() == Scalings.size() && "same features");
  assert(Options.Loss == LossKind::CrossEntropy && "labels, not targets");
  size_t F = D.getNumFeatures(), N = D.size();
  Eigen::MatrixXd X(F, N);
  Eigen::VectorXd Y(N), W(N);
  std::vector<double> Buf(F);
  for (size_t I = 0; I < N; ++I) {
    normalizeRow(Scalings, D.row(I), Buf.data());
    for (size_t J = 0; J < F; ++J)
      X(J, I) = Buf[J];
    Y(I) = D.label(I);
    W(I) = D.weight(I);
  }
  EpochStats S =
      measure(P->Shapes, Theta, X, Y, W, Options.Loss, Options.Threshold);
  S.Epoch = Epoch;
  return S;
}

double ClassifierTrainer::predictLogit(ArrayRef<float> RawRow) const {
  Eigen::MatrixXd X(RawRow.size(), 1);
  std::vector<double> Buf(RawRow.size());
  normalizeRow(Scalings, RawRow, Buf.data());
  for (size_t J = 0; J < Buf.size(); ++J)
    X(J, 0) = Buf[J];
  std::vector<Eigen::MatrixXd> Acts;
  forward(P->Shapes, Theta, X, Acts);
  return Acts.back()(0, 0);
}

Error ClassifierTrainer::setParameters(ArrayRef<double> NewTheta) {
  if (NewTheta.size() != Theta.size())
    return makeError("got " + Twine(NewTheta.size()) +
                     " parameters, the classifier has " + Twine(Theta.size()));
  Theta.assign(NewTheta.begin(), NewTheta.end());
  return Error::success();
}

std::string describeRecipe(const ClassifierOptions &O) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "mlgo classifier: hidden=[";
  for (size_t I = 0; I < O.Hidden.size(); ++I)
    OS << (I ? "," : "") << O.Hidden[I];
  OS << "] activation=" << toString(O.HiddenActivation)
     << " epochs=" << O.Epochs << " batch=" << O.BatchSize << " optimizer="
     << (O.Optimizer.TheKind == OptimizerOptions::Kind::Adam ? "adam" : "sgd")
     << " lr=" << formatModelDouble(O.Optimizer.LearningRate)
     << " l2=" << formatModelDouble(O.L2)
     << " log1p=" << (O.Normalization.Log1p ? 1 : 0);
  if (O.ResidualFeature)
    OS << " residual=" << *O.ResidualFeature;
  // Written only when not the default, so the recipes of classifiers
  // trained before regression losses existed read the same.
  if (O.Loss != LossKind::CrossEntropy)
    OS << " loss=" << toString(O.Loss);
  OS << " threshold=" << formatModelFloat(O.Threshold) << " seed=" << O.Seed;
  return S;
}

Expected<Model> ClassifierTrainer::exportModel() const {
  Model M;
  M.Metadata = Options.Metadata;
  if (M.Metadata.Name.empty())
    M.Metadata.Name = "classifier";
  if (M.Metadata.Recipe.empty())
    M.Metadata.Recipe = describeRecipe(Options);
  M.Metadata.Seed = Options.Seed;
  std::vector<TensorSpec> Specs = Options.InputSpecs;
  if (Specs.empty()) {
    // The training loop should pass the compiler's specs; this default
    // matches LLVM's inlining features (int64_t [1]).
    for (const std::string &Name : P->FeatureNames)
      Specs.push_back(TensorSpec::createSpec<int64_t>(Name, {1}));
  }
  M.Inputs = makeModelInputs(Specs, Scalings);
  for (const LayerShape &S : P->Shapes) {
    DenseLayer L;
    L.In = S.In;
    L.Out = S.Out;
    L.Act = S.Act;
    for (size_t K = 0; K < S.In * S.Out; ++K)
      L.Weights.push_back(static_cast<float>(Theta[S.Offset + K]));
    for (size_t K = 0; K < S.Out; ++K)
      L.Bias.push_back(static_cast<float>(Theta[S.Offset + S.In * S.Out + K]));
    M.Layers.push_back(std::move(L));
  }
  M.OutputSpec = Options.OutputSpec;
  M.Decision.TheKind = DecisionRule::Kind::Threshold;
  M.Decision.Threshold = Options.Threshold;
  if (Error E = M.validate(M.Metadata.Name))
    return E;
  return M;
}

void ClassifierTrainer::saveState(Checkpoint &C, StringRef Prefix) const {
  C.setF64s((Prefix + "theta").str(), Theta);
  C.setU64((Prefix + "epoch").str(), Epoch);
  Opt.saveState(C, (Prefix + "opt.").str());
  saveRng(C, Prefix, R);
}

Error ClassifierTrainer::loadState(const Checkpoint &C, StringRef Prefix) {
  Expected<std::vector<double>> NewTheta = C.getF64s((Prefix + "theta").str());
  if (!NewTheta)
    return NewTheta.takeError();
  Expected<uint64_t> NewEpoch = C.getU64((Prefix + "epoch").str());
  if (!NewEpoch)
    return NewEpoch.takeError();
  if (Error E = setParameters(*NewTheta))
    return E;
  if (Error E = Opt.loadState(C, (Prefix + "opt.").str()))
    return E;
  if (Error E = loadRng(C, Prefix, R))
    return E;
  Epoch = static_cast<unsigned>(*NewEpoch);
  return Error::success();
}

Expected<Model> trainClassifier(const Dataset &D,
                                const ClassifierOptions &Options,
                                ArrayRef<double> Targets) {
  Expected<std::unique_ptr<ClassifierTrainer>> T =
      ClassifierTrainer::create(D, Options, Targets);
  if (!T)
    return T.takeError();
  (*T)->run();
  return (*T)->exportModel();
}

} // namespace learn
} // namespace mlgo
