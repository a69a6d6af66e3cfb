//===- lib/Corpus/CodeSize.cpp - mlgo's measure of native code
//-------------===//
//
// Executable sections of an object, and the grouped ones among them, read
// with LLVM's Object library (see mlgo/Corpus/CodeSize.h).
//
//===----------------------------------------------------------------------===//

#include "mlgo/Corpus/CodeSize.h"

#include "mlgo/Support/Error.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"

#include <algorithm>

using namespace llvm;

namespace mlgo {

uint64_t CodeSize::getGroupedTotal() const {
  uint64_t Sum = 0;
  for (const auto &[Name, Bytes] : Grouped)
    Sum += Bytes;
  return Sum;
}

uint64_t getCodeOnce(ArrayRef<const CodeSize *> Objects) {
  std::vector<std::pair<uint64_t, const decltype(CodeSize::Grouped) *>> Code;
  for (const CodeSize *C : Objects)
    Code.push_back({C->Total, &C->Grouped});
  return getCodeOnce<std::string>(Code);
}

uint64_t getTextSize(const object::ObjectFile &Obj) {
  uint64_t Size = 0;
  for (const object::SectionRef &Sec : Obj.sections())
    if (Sec.isText())
      Size += Sec.getSize();
  return Size;
}

Expected<uint64_t> getTextSize(StringRef ObjectPath) {
  Expected<object::OwningBinary<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(ObjectPath);
  if (!Obj)
    return makeError(ObjectPath + ": " + toString(Obj.takeError()));
  return getTextSize(*Obj->getBinary());
}

Expected<uint64_t> getTextSize(MemoryBufferRef Object) {
  Expected<CodeSize> C = getCodeSize(Object);
  if (!C)
    return C.takeError();
  return C->Total;
}

CodeSize getCodeSize(const object::ObjectFile &Obj) {
  CodeSize C;
  C.Total = getTextSize(Obj);
  const auto *ELF = dyn_cast<object::ELFObjectFileBase>(&Obj);
  if (!ELF)
    return C;
  for (const object::ELFSectionRef Sec : ELF->sections()) {
    if (!Sec.isText() || !(Sec.getFlags() & ELF::SHF_GROUP))
      continue;
    Expected<StringRef> Name = Sec.getName();
    // A section without a readable name cannot be matched with other
    // objects' copies; it stays ungrouped (counted in every object).
    if (!Name) {
      consumeError(Name.takeError());
      continue;
    }
    C.Grouped.push_back({Name->str(), Sec.getSize()});
  }
  llvm::sort(C.Grouped);
  // One entry per name: a group may hold two executable sections of the
  // same name only in hand-written assembly, but the sum stays exact.
  std::vector<std::pair<std::string, uint64_t>> Merged;
  for (auto &[Name, Bytes] : C.Grouped) {
    if (!Merged.empty() && Merged.back().first == Name)
      Merged.back().second += Bytes;
    else
      Merged.push_back({std::move(Name), Bytes});
  }
  C.Grouped = std::move(Merged);
  return C;
}

Expected<CodeSize> getCodeSize(MemoryBufferRef Object) {
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(Object);
  if (!Obj)
    return makeError(Object.getBufferIdentifier() + ": " +
                     toString(Obj.takeError()));
  return getCodeSize(**Obj);
}

Expected<std::vector<std::pair<std::string, uint64_t>>>
getFunctionSizes(MemoryBufferRef Object) {
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(Object);
  if (!Obj)
    return makeError(Object.getBufferIdentifier() + ": " +
                     toString(Obj.takeError()));
  const auto *ELF = dyn_cast<object::ELFObjectFileBase>(Obj->get());
  if (!ELF)
    return makeError(Object.getBufferIdentifier() +
                     ": function sizes need an ELF object");
  std::vector<std::pair<std::string, uint64_t>> Sizes;
  for (const object::ELFSymbolRef Sym : ELF->symbols()) {
    if (Sym.getELFType() != ELF::STT_FUNC)
      continue;
    Expected<object::section_iterator> Sec = Sym.getSection();
    if (!Sec) {
      consumeError(Sec.takeError());
      continue;
    }
    if (*Sec == ELF->section_end() || !(*Sec)->isText())
      continue;
    Expected<StringRef> Name = Sym.getName();
    if (!Name)
      return makeError(
          Object.getBufferIdentifier() +
          ": unreadable symbol name: " + toString(Name.takeError()));
    Sizes.push_back({Name->str(), Sym.getSize()});
  }
  llvm::sort(Sizes);
  return Sizes;
}

} // namespace mlgo
