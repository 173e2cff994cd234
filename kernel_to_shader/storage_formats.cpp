// Storage images of a known format, for devices that cannot read (or write) storage images
// of format Unknown: lavapipe has no shaderStorageImageReadWithoutFormat, so a read_write
// image there is a storage image whose SPIR-V format names the bound image's format. The
// translator declares every storage image with format Unknown; the pipeline of a launch
// retypes the read_write ones here, for the formats bound to them.
#include <algorithm>
#include <set>

#include "ir/module.h"
#include "vkcl/kernel_to_shader/translate.h"

namespace vkcl::k2s {

using spv::Op;

namespace {

constexpr uint32_t kImageFormatOperand = 6;  // of OpTypeImage, after the sampled type
constexpr uint32_t kImageSampledOperand = 5;

const ir::Instruction* find_global(const ir::Module& m, uint32_t id) {
  for (const auto& g : m.globals)
    if (g.result_id == id) return &g;
  return nullptr;
}

}  // namespace

bool extended_storage_format(uint32_t format) {
  using F = spv::ImageFormat;
  switch (F(format)) {
    case F::Unknown: case F::Rgba32f: case F::Rgba16f: case F::R32f: case F::Rgba8: case F::Rgba8Snorm:
    case F::Rgba32i: case F::Rgba16i: case F::Rgba8i: case F::R32i:
    case F::Rgba32ui: case F::Rgba16ui: case F::Rgba8ui: case F::R32ui:
      return false;
    default: return true;
  }
}

std::vector<uint32_t> type_storage_images(const std::vector<uint32_t>& shader,
                                          const std::map<uint32_t, uint32_t>& formats) {
  ir::Module m;
  std::string error;
  if (formats.empty() || !ir::parse(shader.data(), shader.size(), &m, &error)) return shader;
  std::map<uint32_t, uint32_t> binding_of;  // variable -> binding, in descriptor set 0
  for (const auto& a : m.annotations)
    if (a.opcode == Op::OpDecorate && a.operands.size() == 3 &&
        a.operands[1] == uint32_t(spv::Decoration::Binding))
      binding_of[a.operands[0]] = a.operands[2];

  // Each retyped variable, its new image type; and every storage image variable left of
  // format Unknown. The types are interned after the walk: interning appends to m.globals.
  struct Retype {
    uint32_t variable;
    uint32_t storage_class;
    std::vector<uint32_t> image_operands;
  };
  std::vector<Retype> wanted;
  std::set<uint32_t> unknown;
  for (const auto& g : m.globals) {
    if (g.opcode != Op::OpVariable) continue;
    const ir::Instruction* pointer = find_global(m, g.type_id);
    if (!pointer || pointer->opcode != Op::OpTypePointer || pointer->operands.size() != 2) continue;
    const ir::Instruction* image = find_global(m, pointer->operands[1]);
    if (!image || image->opcode != Op::OpTypeImage || image->operands.size() <= kImageFormatOperand ||
        image->operands[kImageSampledOperand] != 2)
      continue;
    auto b = binding_of.find(g.result_id);
    auto f = b == binding_of.end() ? formats.end() : formats.find(b->second);
    if (f == formats.end()) {
      if (image->operands[kImageFormatOperand] == uint32_t(spv::ImageFormat::Unknown)) unknown.insert(g.result_id);
      continue;
    }
    Retype r{g.result_id, pointer->operands[0], image->operands};
    r.image_operands[kImageFormatOperand] = f->second;
    wanted.push_back(std::move(r));
  }
  std::map<uint32_t, uint32_t> retyped;
  for (const Retype& r : wanted) {
    uint32_t typed = ir::intern_global(m, Op::OpTypeImage, 0, r.image_operands);
    uint32_t typed_pointer = ir::intern_global(m, Op::OpTypePointer, 0, {r.storage_class, typed});
    retyped[r.variable] = typed;
    for (auto& v : m.globals)
      if (v.result_id == r.variable) v.type_id = typed_pointer;
  }
  if (retyped.empty()) return shader;
  // The new types were appended: the variables follow them.
  std::stable_partition(m.globals.begin(), m.globals.end(),
                        [&](const ir::Instruction& g) { return !retyped.count(g.result_id); });

  // Loads of a retyped variable give the typed image. A read or write of an image that does
  // not come straight from a load of a retyped variable keeps the capability it needs.
  std::map<uint32_t, uint32_t> loaded;  // load result -> variable
  bool unknown_read = false, unknown_write = false;
  for (auto& f : m.functions)
    for (auto& b : f.blocks)
      for (auto& i : b.instructions) {
        if (i.opcode == Op::OpLoad && !i.operands.empty()) {
          auto r = retyped.find(i.operands[0]);
          if (r != retyped.end()) i.type_id = r->second;
          loaded[i.result_id] = i.operands[0];
        } else if ((i.opcode == Op::OpImageRead || i.opcode == Op::OpImageWrite) && !i.operands.empty()) {
          auto l = loaded.find(i.operands[0]);
          bool typed = l != loaded.end() && !unknown.count(l->second);
          if (!typed) (i.opcode == Op::OpImageRead ? unknown_read : unknown_write) = true;
        }
      }
  auto drop = [&](spv::Capability c) {
    m.capabilities.erase(std::remove_if(m.capabilities.begin(), m.capabilities.end(),
                                        [&](const ir::Instruction& i) {
                                          return !i.operands.empty() && i.operands[0] == uint32_t(c);
                                        }),
                         m.capabilities.end());
  };
  bool extended = false;
  for (const auto& [binding, format] : formats) extended = extended || extended_storage_format(format);
  if (extended) {
    drop(spv::Capability::StorageImageExtendedFormats);
    m.capabilities.emplace_back(Op::OpCapability, 0, 0,
                                std::vector<uint32_t>{uint32_t(spv::Capability::StorageImageExtendedFormats)});
  }
  if (!unknown_read) drop(spv::Capability::StorageImageReadWithoutFormat);
  if (!unknown_write) drop(spv::Capability::StorageImageWriteWithoutFormat);
  return ir::serialize(m);
}

}  // namespace vkcl::k2s
