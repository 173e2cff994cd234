#include "passes/type_layout.h"

#include "passes/lower_to_shader.h"

namespace vkcl::k2s {

namespace {
uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }
}  // namespace

const Layout& TypeLayout::of(uint32_t in_type) {
  auto it = cache_.find(in_type);
  if (it != cache_.end()) return it->second;
  Layout l;
  const ir::Instruction* t = lowering_.def(in_type);
  if (t) {
    switch (t->opcode) {
      case spv::Op::OpTypeBool:
        l.size = l.alignment = 1;
        break;
      case spv::Op::OpTypeInt:
      case spv::Op::OpTypeFloat:
        l.size = l.alignment = t->operands[0] / 8;
        break;
      case spv::Op::OpTypePointer:
      case spv::Op::OpTypeEvent:
        l.size = l.alignment = 8;
        break;
      case spv::Op::OpTypeVector: {
        Layout e = of(t->operands[0]);
        uint32_t n = t->operands[1] == 3 ? 4 : t->operands[1];
        l.stride = e.size;
        l.size = l.alignment = e.size * n;
        break;
      }
      case spv::Op::OpTypeArray: {
        Layout e = of(t->operands[0]);
        bool ok = false;
        uint64_t n = lowering_.constant_value(t->operands[1], &ok);
        l.stride = align_up(e.size, e.alignment);
        l.size = uint32_t(l.stride * n);
        l.alignment = e.alignment;
        break;
      }
      case spv::Op::OpTypeStruct: {
        bool packed = lowering_.decoration(in_type, spv::Decoration::CPacked) != nullptr;
        uint32_t offset = 0, alignment = 1;
        for (uint32_t member : t->operands) {
          Layout m = of(member);
          uint32_t a = packed ? 1 : m.alignment;
          offset = align_up(offset, a);
          l.member_offsets.push_back(offset);
          offset += m.size;
          alignment = std::max(alignment, a);
        }
        l.alignment = alignment;
        l.size = align_up(offset, alignment);
        break;
      }
      default:
        break;
    }
  }
  return cache_[in_type] = l;
}

}  // namespace vkcl::k2s
