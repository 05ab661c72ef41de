#!/usr/bin/env python3
"""make_graphs.py OUTDIR: the ONNX graphs capplan's tests read, built
with the onnx Python package (Debian's python3-onnx).

Weights are initializers with their shapes and no values (capplan reads
only shapes), so the files are a few kilobytes; integer constants (the
shapes given to Reshape) carry their values.

  resnet50.onnx         ResNet-50 v1.5 as torchvision builds it (stride on
                        the 3x3 convolution), batch 1, no value_info: the
                        shapes are left to capplan
  resnet50-folded.onnx  the same as an inference export writes it: batch
                        norms folded into the convolutions
  resnext101-32x4d.onnx ResNeXt-101 32x4d (grouped 3x3 convolutions)
  effnet.onnx           an EfficientNet-B0-like network: MBConv blocks
                        with depthwise convolutions, squeeze-excitation
                        and SiLU (Sigmoid x Mul), symbolic batch 'N',
                        shapes written by onnx.shape_inference
  vit.onnx              a small vision transformer (patch 16, 224x224,
                        width 192, 3 heads, 4 layers, MLP 768), batch 2,
                        shapes written by onnx.shape_inference
  resnet101.onnx        ResNet-101 (blocks 3, 4, 23, 3)
  resnext50-32x4d.onnx  ResNeXt-50 32x4d
  vit-b16.onnx          ViT-B/16: width 768, 12 heads, 12 layers, MLP
                        3072, as timm's vit_base_patch16_224
  seresnet50.onnx       timm's seresnet50 and seresnext50_32x4d: the
  seresnext50-32x4d.onnx  bottleneck networks with squeeze-excitation
                        (GlobalAveragePool, 1x1 Conv, Relu, 1x1 Conv,
                        Sigmoid, Mul) before each residual Add
  mobilenetv2.onnx      MobileNetV2 1.0 (timm's mobilenetv2_100):
                        inverted residuals with depthwise 3x3
                        convolutions and ReLU6 (Clip), symbolic batch
  export13.onnx         a small transformer as torch.onnx.export writes
  export17.onnx         it at opsets 13 and 17, symbolic batch 'N', no
                        value_info: the shapes of Reshape, Expand, Pad
                        and Resize computed from Shape by Gather,
                        Unsqueeze, Concat, Equal / Where, ConstantOfShape,
                        Slice (a reversal) and Transpose, constants as
                        Constant nodes with raw data, a three-way Split,
                        layer norms as ReduceMean arithmetic (13)
  export13-ref.onnx     the same at batch 1 with every shape written by
  export17-ref.onnx     onnx.shape_inference (data propagation on): the
                        reference capplan's own inference must match
  upsample7.onnx        a convolution, a 2x nearest upsampling and a
  upsample9.onnx        convolution without value_info: Upsample's
  resize13.onnx         scales as an attribute (opset 7), as an input
                        (opset 9), and Resize (opset 13)
  bad-*.onnx            graphs capplan must refuse, each with what is
                        wrong with it (issue 40): no weights, a cycle, a
                        negative dimension, zero strides, a negative
                        kernel, no arithmetic (tests/onnx/onnx_counts.c
                        checks the messages; tests/fuzz/seeds/onnx/ keeps
                        copies for the fuzz corpus and the CLI cases)
"""
import os
import sys

import onnx
import onnx.numpy_helper
from onnx import TensorProto, helper


class Net:
    def __init__(self, name):
        self.name = name
        self.nodes = []
        self.inits = []
        self.n = 0

    def fresh(self, base):
        self.n += 1
        return "%s_%d" % (base, self.n)

    def weight(self, base, dims):
        t = TensorProto()
        t.name = self.fresh(base)
        t.data_type = TensorProto.FLOAT
        t.dims.extend(dims)
        self.inits.append(t)
        return t.name

    def const_ints(self, base, vals):
        name = self.fresh(base)
        self.inits.append(helper.make_tensor(name, TensorProto.INT64,
                                             [len(vals)], vals))
        return name

    def op(self, op_type, inputs, **attrs):
        out = self.fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out],
                                           name=out, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, group=1, bias=False, pad=None):
        w = self.weight("w", [cout, cin // group, k, k])
        ins = [x, w]
        if bias:
            ins.append(self.weight("b", [cout]))
        p = k // 2 if pad is None else pad
        return self.op("Conv", ins, kernel_shape=[k, k],
                       strides=[stride, stride], pads=[p, p, p, p],
                       group=group)

    def bn(self, x, c):
        ins = [x] + [self.weight(s, [c]) for s in ("g", "beta", "mean",
                                                    "var")]
        return self.op("BatchNormalization", ins, epsilon=1e-5)

    def model(self, x_shape, out_name, out_shape, infer, opset=13):
        x = helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                          x_shape)
        y = helper.make_tensor_value_info(out_name, TensorProto.FLOAT,
                                          out_shape)
        g = helper.make_graph(self.nodes, self.name, [x], [y],
                              initializer=self.inits)
        m = helper.make_model(g, producer_name="capplan-tests",
                              opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        if infer:
            m = onnx.shape_inference.infer_shapes(m)
        return m


def exported(opset, batch):
    """A small transformer as torch.onnx.export writes one (opset 13:
    F.pad with computed pads and decomposed layer norms; 17: Resize to
    computed sizes, Shape with start and end, LayerNormalization):
    batch 'batch' (a name: symbolic), constants as Constant nodes.  At
    batch 1 it is the reference: every shape a constant (what the shape
    arithmetic computes), written out by onnx.shape_inference."""
    ref = not isinstance(batch, str)
    n = Net("export%d" % opset)
    d, heads, dh = 64, 2, 32

    def const(vals, dtype=TensorProto.INT64, dims=None):
        out = n.fresh("const")
        t = helper.make_tensor(out, dtype, [len(vals)] if dims is None
                               else dims, vals)
        # exporters write raw little-endian bytes
        raw = helper.make_tensor(out, dtype, t.dims,
                                 onnx.numpy_helper.to_array(t).tobytes(),
                                 raw=True)
        n.nodes.append(helper.make_node("Constant", [], [out], name=out,
                                        value=raw))
        return out

    def axes_op(op, x, axes, **attrs):
        if opset >= 13 and op in ("Unsqueeze", "Squeeze"):
            return n.op(op, [x, const(axes)], **attrs)
        return n.op(op, [x], axes=axes, **attrs)

    def layer_norm(x):
        g, b = n.weight("g", [d]), n.weight("beta", [d])
        if opset >= 17:
            return n.op("LayerNormalization", [x, g, b], axis=-1)
        m = axes_op("ReduceMean", x, [-1])
        c = n.op("Sub", [x, m])
        v = axes_op("ReduceMean", n.op("Pow", [c, const(
            [2.0], TensorProto.FLOAT, [])]), [-1])
        y = n.op("Div", [c, n.op("Sqrt", [n.op("Add", [v, const(
            [1e-6], TensorProto.FLOAT, [])])])])
        return n.op("Add", [n.op("Mul", [y, g]), b])

    def batch_of(x):
        # the batch as a 1-element tensor
        if ref:
            return const([1])
        if opset >= 15:
            return n.op("Shape", [x], start=0, end=1)
        return axes_op("Unsqueeze", n.op("Gather", [
            n.op("Shape", [x]), const([0], dims=[])], axis=0), [0])

    x = "input"
    if opset >= 17:
        # Resize to 240 x 240: sizes = the input's N, C and 240, 240
        sizes = n.op("Concat", [n.op("Shape", [x], start=0, end=2),
                                const([240, 240])], axis=0)
        if ref:
            sizes = const([1, 3, 240, 240])
        x = n.op("Resize", [x, "", "", sizes], mode="linear")
    elif ref:
        x = n.op("Pad", [x, const([0, 0, 8, 8, 0, 0, 8, 8])])
    else:
        # F.pad(x, (8, 8, 8, 8)): torch's pads, last axis first, padded
        # with zeros, reversed in pairs and transposed to ONNX's order
        lst = n.op("Concat", [const([8, 8, 8, 8]), n.op(
            "ConstantOfShape", [const([4])],
            value=helper.make_tensor("v", TensorProto.INT64, [1], [0]))],
            axis=0)
        pairs = n.op("Reshape", [lst, const([-1, 2])])
        rev = n.op("Slice", [pairs, const([-1]), const([-(2 ** 63 - 1)]),
                             const([0]), const([-1])])
        pads = n.op("Reshape", [n.op("Transpose", [rev], perm=[1, 0]),
                                const([-1])])
        x = n.op("Pad", [x, n.op("Cast", [pads], to=TensorProto.INT64)])
    x = n.op("Conv", [x, n.weight("wp", [d, 3, 16, 16]),
                      n.weight("bp", [d])], kernel_shape=[16, 16],
             strides=[16, 16])                             # N, d, 15, 15
    nb = batch_of(x)
    x = n.op("Reshape", [x, n.op("Concat", [nb, const([d]), const([-1])],
                                 axis=0)])
    x = n.op("Transpose", [x], perm=[0, 2, 1])             # N, 225, d
    # the class token's expand(N, -1, -1): -1 becomes 1
    shp = n.op("Concat", [nb, const([-1]), const([-1])], axis=0)
    ones = n.op("ConstantOfShape", [const([3])],
                value=helper.make_tensor("v", TensorProto.INT64, [1], [1]))
    shp = n.op("Where", [n.op("Equal", [shp, n.op("Mul", [
        ones, const([-1], dims=[])])]), ones, shp])
    if ref:
        shp = const([1, 1, 1])
    cls = n.op("Expand", [n.weight("cls", [1, 1, d]), shp])
    x = n.op("Concat", [cls, x], axis=1)                   # N, 226, d
    x = n.op("Add", [x, n.weight("pos", [1, 226, d])])
    h = layer_norm(x)
    qkv = n.op("Add", [n.op("MatMul", [h, n.weight("wqkv", [d, 3 * d])]),
                       n.weight("bqkv", [3 * d])])
    outs = [n.fresh("split") for _ in range(3)]
    ins = [qkv] if opset >= 17 else [qkv, const([d, d, d])]
    n.nodes.append(helper.make_node("Split", ins, outs, name=outs[0],
                                    axis=2))
    heads_shape = n.op("Concat", [nb, const([226, heads, dh])], axis=0)
    q, k, v = (n.op("Reshape", [t, heads_shape]) for t in outs)
    q = n.op("Transpose", [q], perm=[0, 2, 1, 3])          # N, h, 226, dh
    k = n.op("Transpose", [k], perm=[0, 2, 3, 1])          # N, h, dh, 226
    v = n.op("Transpose", [v], perm=[0, 2, 1, 3])
    p = n.op("Softmax", [n.op("MatMul", [q, k])], axis=-1)
    o = n.op("Transpose", [n.op("MatMul", [p, v])], perm=[0, 2, 1, 3])
    o = n.op("Reshape", [o, n.op("Concat", [nb, const([226, d])], axis=0)])
    x = n.op("Add", [x, n.op("MatMul", [o, n.weight("wo", [d, d])])])
    c = n.op("Slice", [x, const([0]), const([1]), const([1])])  # N, 1, d
    c = axes_op("Squeeze", c, [1])                         # N, d
    y = n.op("Gemm", [c, n.weight("head", [10, d]), n.weight("hb", [10])],
             transB=1)
    m = n.model([batch, 3, 224, 224], y, [batch, 10], infer=False,
                opset=opset)
    if ref:
        m = onnx.shape_inference.infer_shapes(m, strict_mode=True,
                                              data_prop=True)
        # the reference must be complete: every intermediate's shape
        for vi in m.graph.value_info:
            dims = vi.type.tensor_type.shape.dim
            assert all(x.HasField("dim_value") for x in dims), vi.name
        assert len(m.graph.value_info) + 1 >= len(m.graph.node) - sum(
            1 for x in m.graph.node if x.op_type == "Constant"), \
            "shape inference left tensors out"
    return m


def squeeze_excite(n, x, c, rd):
    """timm's SEModule (seresnet50, seresnext50_32x4d): the mean over
    the pixels, a 1x1 convolution to rd channels with bias, ReLU, a 1x1
    convolution back to c with bias, Sigmoid, and the input scaled by
    the gate."""
    z = n.op("GlobalAveragePool", [x])
    z = n.op("Relu", [n.conv(z, c, rd, 1, bias=True)])
    z = n.op("Sigmoid", [n.conv(z, rd, c, 1, bias=True)])
    return n.op("Mul", [x, z])


def bottleneck_net(name, blocks, groups, base_width, se=False):
    """ResNet-50 (groups 1, width 64) and ResNeXt (groups 32, width 4)
    as torchvision builds them; with 'se' timm's SE-ResNet and
    SE-ResNeXt (squeeze-excitation after the third batch norm of every
    block, before the residual Add; 1/16 of the channels, a multiple
    of 8: timm's SEModule defaults)."""
    n = Net(name)
    x = n.op("Relu", [n.bn(n.conv("input", 3, 64, 7, 2), 64)])
    x = n.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1])
    cin = 64
    for stage, count in enumerate(blocks):
        planes = 64 * 2 ** stage
        width = planes * base_width * groups // 64
        cout = planes * 4
        for b in range(count):
            stride = 2 if b == 0 and stage > 0 else 1
            y = n.op("Relu", [n.bn(n.conv(x, cin, width, 1), width)])
            y = n.op("Relu", [n.bn(n.conv(y, width, width, 3, stride,
                                          groups), width)])
            y = n.bn(n.conv(y, width, cout, 1), cout)
            if se:
                y = squeeze_excite(n, y, cout, max(8, cout // 16))
            if b == 0:
                x = n.bn(n.conv(x, cin, cout, 1, stride), cout)
            x = n.op("Relu", [n.op("Add", [y, x])])
            cin = cout
    x = n.op("GlobalAveragePool", [x])
    x = n.op("Flatten", [x], axis=1)
    x = n.op("Gemm", [x, n.weight("fc", [1000, cin]),
                      n.weight("fcb", [1000])], transB=1)
    return n.model([1, 3, 224, 224], x, [1, 1000], infer=False)


def silu(n, x):
    return n.op("Mul", [x, n.op("Sigmoid", [x])])


def effnet():
    """EfficientNet-B0's stages (Tan and Le 2019, table 1): MBConv
    expand 1x1, depthwise kxk, squeeze-excitation (ratio 1/4 of the
    block input), project 1x1, residual when shapes match."""
    n = Net("effnet")
    x = silu(n, n.bn(n.conv("input", 3, 32, 3, 2), 32))
    cin = 32
    stages = [(1, 16, 1, 1, 3), (6, 24, 2, 2, 3), (6, 40, 2, 2, 5),
              (6, 80, 3, 2, 3), (6, 112, 3, 1, 5), (6, 192, 4, 2, 5),
              (6, 320, 1, 1, 3)]
    for expand, cout, repeats, stride, k in stages:
        for r in range(repeats):
            s = stride if r == 0 else 1
            mid = cin * expand
            y = x
            if expand != 1:
                y = silu(n, n.bn(n.conv(y, cin, mid, 1), mid))
            y = silu(n, n.bn(n.conv(y, mid, mid, k, s, group=mid), mid))
            se = max(1, cin // 4)
            z = n.op("GlobalAveragePool", [y])
            z = silu(n, n.conv(z, mid, se, 1, bias=True))
            z = n.op("Sigmoid", [n.conv(z, se, mid, 1, bias=True)])
            y = n.op("Mul", [y, z])
            y = n.bn(n.conv(y, mid, cout, 1), cout)
            if s == 1 and cin == cout:
                y = n.op("Add", [y, x])
            x = y
            cin = cout
    x = silu(n, n.bn(n.conv(x, cin, 1280, 1), 1280))
    x = n.op("GlobalAveragePool", [x])
    x = n.op("Flatten", [x], axis=1)
    x = n.op("Gemm", [x, n.weight("fc", [1000, 1280]),
                      n.weight("fcb", [1000])], transB=1)
    return n.model(["N", 3, 224, 224], x, ["N", 1000], infer=True)


def mobilenetv2():
    """MobileNetV2 1.0 (Sandler et al. 2018, table 2) as timm's
    mobilenetv2_100 and torchvision's mobilenet_v2 build it: inverted
    residuals (expand 1x1, depthwise 3x3, project 1x1, each with a batch
    norm; ReLU6 as Clip after the first two), residual when shapes
    match, a 1x1 head to 1280 and the classifier."""
    n = Net("mobilenetv2")

    def relu6(x):
        # the bounds as Constant nodes, as torch.onnx.export writes
        # them (capplan counts them as parameters: 70 in all)
        lo = n.op("Constant", [], value=helper.make_tensor(
            "lo", TensorProto.FLOAT, [], [0.0]))
        hi = n.op("Constant", [], value=helper.make_tensor(
            "hi", TensorProto.FLOAT, [], [6.0]))
        return n.op("Clip", [x, lo, hi])

    x = relu6(n.bn(n.conv("input", 3, 32, 3, 2), 32))
    cin = 32
    stages = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
              (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    for expand, cout, repeats, stride in stages:
        for r in range(repeats):
            s = stride if r == 0 else 1
            mid = cin * expand
            y = x
            if expand != 1:
                y = relu6(n.bn(n.conv(y, cin, mid, 1), mid))
            y = relu6(n.bn(n.conv(y, mid, mid, 3, s, group=mid), mid))
            y = n.bn(n.conv(y, mid, cout, 1), cout)
            if s == 1 and cin == cout:
                y = n.op("Add", [y, x])
            x = y
            cin = cout
    x = relu6(n.bn(n.conv(x, cin, 1280, 1), 1280))
    x = n.op("GlobalAveragePool", [x])
    x = n.op("Flatten", [x], axis=1)
    x = n.op("Gemm", [x, n.weight("fc", [1000, 1280]),
                      n.weight("fcb", [1000])], transB=1)
    return n.model(["N", 3, 224, 224], x, ["N", 1000], infer=True)


def vit(name="vit", d=192, heads=3, layers=4, mlp=768):
    """A ViT (Dosovitskiy et al. 2021): patch embedding as a 16x16/16
    convolution, a class token, pre-norm blocks of multi-head attention
    (MatMul, Softmax) and a GELU MLP; by default a small one, with
    d=768, heads=12, layers=12, mlp=3072 ViT-B/16."""
    n = Net(name)
    b = 2
    dh = d // heads
    x = n.conv("input", 3, d, 16, 16, bias=True, pad=0)  # b, d, 14, 14
    x = n.op("Reshape", [x, n.const_ints("s", [b, d, 196])])
    x = n.op("Transpose", [x], perm=[0, 2, 1])        # b, 196, d
    cls = n.op("Expand", [n.weight("cls", [1, 1, d]),
                          n.const_ints("s", [b, 1, d])])
    x = n.op("Concat", [cls, x], axis=1)              # b, 197, d
    x = n.op("Add", [x, n.weight("pos", [1, 197, d])])
    for _ in range(layers):
        h = n.op("LayerNormalization", [x, n.weight("g", [d]),
                                        n.weight("beta", [d])], axis=-1)
        qkv = n.op("Add", [n.op("MatMul", [h, n.weight("wqkv", [d, 3 * d])]),
                           n.weight("bqkv", [3 * d])])
        qkv = n.op("Reshape", [qkv, n.const_ints("s", [b, 197, 3, heads,
                                                       dh])])
        qkv = n.op("Transpose", [qkv], perm=[2, 0, 3, 1, 4])
        q, k, v = (n.op("Gather", [qkv, n.const_ints("i", [i])], axis=0)
                   for i in range(3))
        q, k, v = (n.op("Squeeze", [t, n.const_ints("a", [0])])
                   for t in (q, k, v))              # b, heads, 197, dh
        kt = n.op("Transpose", [k], perm=[0, 1, 3, 2])
        s = n.op("MatMul", [q, kt])                   # b, heads, 197, 197
        s = n.op("Mul", [s, n.weight("scale", [1])])
        p = n.op("Softmax", [s], axis=-1)
        o = n.op("MatMul", [p, v])                    # b, heads, 197, dh
        o = n.op("Transpose", [o], perm=[0, 2, 1, 3])
        o = n.op("Reshape", [o, n.const_ints("s", [b, 197, d])])
        o = n.op("Add", [n.op("MatMul", [o, n.weight("wo", [d, d])]),
                         n.weight("bo", [d])])
        x = n.op("Add", [x, o])
        h = n.op("LayerNormalization", [x, n.weight("g", [d]),
                                        n.weight("beta", [d])], axis=-1)
        h = n.op("Add", [n.op("MatMul", [h, n.weight("w1", [d, mlp])]),
                         n.weight("b1", [mlp])])
        # GELU as exporters write it: x * 0.5 * (1 + erf(x / sqrt 2))
        e = n.op("Erf", [n.op("Div", [h, n.weight("sqrt2", [1])])])
        e = n.op("Add", [e, n.weight("one", [1])])
        h = n.op("Mul", [n.op("Mul", [h, e]), n.weight("half", [1])])
        h = n.op("Add", [n.op("MatMul", [h, n.weight("w2", [mlp, d])]),
                         n.weight("b2", [d])])
        x = n.op("Add", [x, h])
    x = n.op("LayerNormalization", [x, n.weight("g", [d]),
                                    n.weight("beta", [d])], axis=-1)
    x = n.op("Gather", [x, n.const_ints("i", [0])], axis=1)  # b, 1, d
    x = n.op("Reshape", [x, n.const_ints("s", [b, d])])
    x = n.op("Gemm", [x, n.weight("head", [1000, d]),
                      n.weight("hb", [1000])], transB=1)
    # LayerNormalization is an operator from opset 17
    return n.model([b, 3, 224, 224], x, [b, 1000], infer=True, opset=17)


def fold_norms(m):
    """The graph as torch.onnx.export writes a model in eval mode: every
    BatchNormalization folded into the Conv before it, which gains a
    bias (PyTorch's eval peephole pass, PR 40547)."""
    g = m.graph
    inits = {t.name: t for t in g.initializer}
    made = {n.output[0]: n for n in g.node}
    rename, drop, nodes = {}, set(), []
    for n in g.node:
        if n.op_type == "BatchNormalization":
            conv = made[n.input[0]]
            b = TensorProto()
            b.name = conv.input[1] + "_bias"
            b.data_type = TensorProto.FLOAT
            b.dims.extend([inits[conv.input[1]].dims[0]])
            g.initializer.append(b)
            conv.input.append(b.name)
            rename[n.output[0]] = n.input[0]
            drop.update(n.input[1:])
            continue
        nodes.append(n)
    for n in nodes:
        for i, x in enumerate(n.input):
            n.input[i] = rename.get(x, x)
    keep = [t for t in g.initializer if t.name not in drop]
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(keep)
    return m


GRAPHS = {
    "resnet50.onnx": lambda: bottleneck_net("resnet50", [3, 4, 6, 3], 1,
                                            64),
    "resnext101-32x4d.onnx": lambda: bottleneck_net(
        "resnext101-32x4d", [3, 4, 23, 3], 32, 4),
    "resnet50-folded.onnx": lambda: fold_norms(bottleneck_net(
        "resnet50", [3, 4, 6, 3], 1, 64)),
    "effnet.onnx": effnet,
    "vit.onnx": vit,
    # the networks of the timm benchmark rows (tests/validation/
    # vision-timm.csv): torchvision's and timm's ResNet-101 and
    # ResNeXt-50 32x4d, and ViT-B/16 (vit_base_patch16_224)
    "resnet101.onnx": lambda: bottleneck_net("resnet101", [3, 4, 23, 3],
                                             1, 64),
    "resnext50-32x4d.onnx": lambda: bottleneck_net(
        "resnext50-32x4d", [3, 4, 6, 3], 32, 4),
    "vit-b16.onnx": lambda: vit("vit-b16", 768, 12, 12, 3072),
    # squeeze-excitation and depthwise networks of the same benchmark
    # (tests/validation/vision-dwse.csv): timm's seresnet50,
    # seresnext50_32x4d and mobilenetv2_100
    "seresnet50.onnx": lambda: bottleneck_net("seresnet50", [3, 4, 6, 3],
                                              1, 64, se=True),
    "seresnext50-32x4d.onnx": lambda: bottleneck_net(
        "seresnext50-32x4d", [3, 4, 6, 3], 32, 4, se=True),
    "mobilenetv2.onnx": mobilenetv2,
    "export13.onnx": lambda: exported(13, "N"),
    "export13-ref.onnx": lambda: exported(13, 1),
    "export17.onnx": lambda: exported(17, "N"),
    "export17-ref.onnx": lambda: exported(17, 1),
    "upsample7.onnx": lambda: upsample(7),
    "upsample9.onnx": lambda: upsample(9),
    "resize13.onnx": lambda: upsample(13),
}


def hostile(kind):
    """A small convolution (x [1, 3, 8, 8], w [4, 3, 3, 3]) spoiled one
    way, its nodes and tensors named so that the messages can name
    them."""
    def vi(name, shape):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)

    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([4, 3, 3, 3])
    inits = [w]
    x_shape = [1, 3, 8, 8]
    conv = {}
    if kind == "no-weights":
        # export_params=False: the weights are graph inputs
        inits = []
    elif kind == "negative-dim":
        x_shape = [1, 3, -8, 8]
    elif kind == "stride-zero":
        conv = {"strides": [0, 0]}
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv0",
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              **conv)]
    if kind == "cycle":
        # c = conv(x + r), r = relu(c)
        nodes = [helper.make_node("Add", ["x3", "r"], ["s"], name="add0"),
                 helper.make_node("Conv", ["s", "w"], ["c"], name="conv0",
                                  kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                 helper.make_node("Relu", ["c"], ["r"], name="relu0"),
                 helper.make_node("Conv", ["x", "w3"], ["x3"],
                                  name="stem", kernel_shape=[1, 1])]
        w3 = TensorProto()
        w3.name = "w3"
        w3.data_type = TensorProto.FLOAT
        w3.dims.extend([3, 3, 1, 1])
        inits.append(w3)
    elif kind == "kernel-negative":
        nodes.append(helper.make_node("MaxPool", ["c"], ["p"], name="pool0",
                                      kernel_shape=[-2, 2]))
    elif kind == "no-arithmetic":
        nodes = [helper.make_node("Transpose", ["x"], ["c"], name="t0",
                                  perm=[0, 1, 3, 2])]
    inputs = [vi("x", x_shape)]
    if kind == "no-weights":
        inputs.append(vi("w", [4, 3, 3, 3]))
    g = helper.make_graph(nodes, "bad-" + kind, inputs, [], initializer=inits)
    m = helper.make_model(g, producer_name="capplan-tests",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


for _kind in ("no-weights", "cycle", "negative-dim", "stride-zero",
              "kernel-negative", "no-arithmetic"):
    GRAPHS["bad-%s.onnx" % _kind] = (lambda k: lambda: hostile(k))(_kind)


def upsample(opset):
    """A convolution, a nearest 2x upsampling, a convolution, without
    value_info: Upsample with the scales as an attribute (opset 7), as
    an input (opset 9), and Resize (opset 13), which must cost the
    same."""
    n = Net("upsample%d" % opset)
    x = n.conv("input", 3, 8, 3)
    if opset < 9:
        x = n.op("Upsample", [x], scales=[1.0, 1.0, 2.0, 2.0],
                 mode="nearest")
    else:
        s = n.fresh("scales")
        n.inits.append(helper.make_tensor(s, TensorProto.FLOAT, [4],
                                          [1.0, 1.0, 2.0, 2.0]))
        if opset < 10:
            x = n.op("Upsample", [x, s], mode="nearest")
        else:
            x = n.op("Resize", [x, "", s], mode="nearest")
    x = n.conv(x, 8, 4, 3)
    m = n.model([1, 3, 16, 16], x, [1, 4, 32, 32], infer=False,
                opset=opset)
    if opset < 9:
        m.ir_version = 3
    return m


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: make_graphs.py OUTDIR\n")
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in GRAPHS.items():
        onnx.save(make(), os.path.join(out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
