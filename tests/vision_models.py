"""torchvision-class image models written against a library namespace T (torch or webtorch), at sizes a
test can run on lavapipe: the layer structure of torchvision's MobileNetV2, EfficientNet (MBConv with
squeeze-excitation, SiLU; stochastic depth off), ResNet (BasicBlock, max-pool stem), VisionTransformer
(conv patch embedding, class token, nn.MultiheadAttention encoder blocks) and ConvNeXt (depthwise 7x7,
LayerNorm channels-last, layer scale), with torchvision's weight initialisation, narrower and shallower.
Written here, not vendored: torchvision's files import its ops/_api/_meta packages."""
import math


def make_divisible(value, divisor=8):
    """torchvision's _make_divisible: the nearest multiple of divisor, never 10% below value."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def conv_norm_act(T, cin, cout, kernel=3, stride=1, groups=1, act=None):
    """torchvision's Conv2dNormActivation: conv (no bias), BatchNorm, activation (ReLU6 in place)."""
    nn = T.nn
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), act() if act else nn.ReLU6(inplace=True))


def init_like_torchvision(T, model):
    nn = T.nn
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.zeros_(m.bias)
    return model


def mobilenet_v2(T, width=0.5, stages=5, last_channel=1280, classes=1000):
    """torchvision's mobilenet_v2(width_mult=width) with its first `stages` inverted-residual rows."""
    nn = T.nn

    class InvertedResidual(nn.Module):
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            hidden = int(round(cin * expand))
            self.use_res_connect = stride == 1 and cin == cout
            layers = [] if expand == 1 else [conv_norm_act(T, cin, hidden, 1)]
            layers += [conv_norm_act(T, hidden, hidden, 3, stride, hidden),
                       nn.Conv2d(hidden, cout, 1, 1, 0, bias=False), nn.BatchNorm2d(cout)]
            self.conv = nn.Sequential(*layers)

        def forward(self, x):
            return x + self.conv(x) if self.use_res_connect else self.conv(x)

    class MobileNetV2(nn.Module):
        def __init__(self):
            super().__init__()
            rows = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
                    [6, 320, 1, 1]][:stages]
            cin = make_divisible(32 * width)
            features = [conv_norm_act(T, 3, cin, stride=2)]
            for expand, c, n, s in rows:
                cout = make_divisible(c * width)
                for i in range(n):
                    features.append(InvertedResidual(cin, cout, s if i == 0 else 1, expand))
                    cin = cout
            features.append(conv_norm_act(T, cin, last_channel, 1))
            self.features = nn.Sequential(*features)
            self.classifier = nn.Sequential(nn.Dropout(0.0), nn.Linear(last_channel, classes))

        def forward(self, x):
            x = nn.functional.adaptive_avg_pool2d(self.features(x), (1, 1))
            return self.classifier(T.flatten(x, 1))

    return init_like_torchvision(T, MobileNetV2())


def efficientnet(T, rows=((1, 3, 1, 8, 8, 1), (4, 3, 2, 8, 12, 2), (4, 5, 2, 12, 16, 1)), stem=8, head=64,
                 classes=10):
    """torchvision's EfficientNet: MBConv rows of (expand, kernel, stride, in, out, layers) with
    squeeze-excitation (a quarter of the block's input channels) and SiLU; stochastic depth off."""
    nn = T.nn

    class SqueezeExcitation(nn.Module):
        def __init__(self, channels, squeezed):
            super().__init__()
            self.fc1, self.fc2 = nn.Conv2d(channels, squeezed, 1), nn.Conv2d(squeezed, channels, 1)
            self.activation, self.scale_activation = nn.SiLU(), nn.Sigmoid()

        def forward(self, x):
            scale = self.fc2(self.activation(self.fc1(nn.functional.adaptive_avg_pool2d(x, 1))))
            return self.scale_activation(scale) * x

    class MBConv(nn.Module):
        def __init__(self, expand, kernel, stride, cin, cout):
            super().__init__()
            self.use_res_connect = stride == 1 and cin == cout
            hidden = make_divisible(cin * expand)
            layers = [] if hidden == cin else [conv_norm_act(T, cin, hidden, 1, act=nn.SiLU)]
            layers += [conv_norm_act(T, hidden, hidden, kernel, stride, hidden, act=nn.SiLU),
                       SqueezeExcitation(hidden, max(1, cin // 4)),
                       nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
            self.block = nn.Sequential(*layers)

        def forward(self, x):
            return self.block(x) + x if self.use_res_connect else self.block(x)

    class EfficientNet(nn.Module):
        def __init__(self):
            super().__init__()
            layers = [conv_norm_act(T, 3, stem, 3, 2, act=nn.SiLU)]
            for expand, kernel, stride, cin, cout, n in rows:
                layers.append(nn.Sequential(*[MBConv(expand, kernel, stride if i == 0 else 1, cin if i == 0 else cout,
                                                     cout) for i in range(n)]))
            layers.append(conv_norm_act(T, rows[-1][4], head, 1, act=nn.SiLU))
            self.features = nn.Sequential(*layers)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.classifier = nn.Sequential(nn.Dropout(0.0), nn.Linear(head, classes))

        def forward(self, x):
            return self.classifier(T.flatten(self.avgpool(self.features(x)), 1))

    model = init_like_torchvision(T, EfficientNet())
    for m in model.modules():  # torchvision: uniform(-1/sqrt(out), 1/sqrt(out)) for the classifier
        if isinstance(m, nn.Linear):
            nn.init.uniform_(m.weight, -1 / math.sqrt(m.out_features), 1 / math.sqrt(m.out_features))
    return model


def resnet(T, widths=(8, 16, 32, 64), classes=10):
    """torchvision's ResNet of BasicBlocks, one block per stage, zero_init_residual off."""
    nn = T.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.downsample = None if stride == 1 and cin == cout else nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += identity
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(widths[0])
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layers = nn.Sequential(*[BasicBlock(widths[max(i - 1, 0)], w, 1 if i == 0 else 2)
                                          for i, w in enumerate(widths)])
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(widths[-1], classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            return self.fc(T.flatten(self.avgpool(self.layers(x)), 1))

    model = ResNet()
    for m in model.modules():  # torchvision: kaiming for convs, BatchNorm ones/zeros, Linear left as built
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    return model


def vit(T, image=16, patch=4, dim=32, heads=4, layers=2, mlp=64, classes=10):
    """torchvision's VisionTransformer: conv patch embedding, class token, learned position embedding,
    pre-norm encoder blocks (nn.MultiheadAttention, MLP with GELU), the head on the class token."""
    nn = T.nn

    class EncoderBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(dim, eps=1e-6)
            self.self_attention = nn.MultiheadAttention(dim, heads, dropout=0.0, batch_first=True)
            self.ln_2 = nn.LayerNorm(dim, eps=1e-6)
            self.mlp = nn.Sequential(nn.Linear(dim, mlp), nn.GELU(), nn.Dropout(0.0), nn.Linear(mlp, dim),
                                     nn.Dropout(0.0))

        def forward(self, x):
            y = self.ln_1(x)
            y, _ = self.self_attention(y, y, y, need_weights=False)
            x = x + y
            return x + self.mlp(self.ln_2(x))

    class VisionTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv_proj = nn.Conv2d(3, dim, patch, patch)
            self.class_token = nn.Parameter(T.zeros(1, 1, dim))
            self.pos_embedding = nn.Parameter(T.empty(1, (image // patch) ** 2 + 1, dim).normal_(std=0.02))
            self.layers = nn.Sequential(*[EncoderBlock() for _ in range(layers)])
            self.ln = nn.LayerNorm(dim, eps=1e-6)
            self.head = nn.Linear(dim, classes)
            nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / (3 * patch * patch)))
            nn.init.zeros_(self.conv_proj.bias)
            nn.init.normal_(self.class_token, std=0.02)  # torchvision leaves it zero; nonzero tests its gradient path

        def forward(self, x):
            x = self.conv_proj(x).reshape(x.shape[0], dim, -1).permute(0, 2, 1)
            x = T.cat([self.class_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embedding
            return self.head(self.ln(self.layers(x))[:, 0])

    return VisionTransformer()


def convnext(T, dims=(8, 16), depths=(1, 2), classes=10, layer_scale=1e-6):
    """torchvision's ConvNeXt: patchify stem (4x4 conv, LayerNorm2d), CNBlocks (depthwise 7x7, LayerNorm
    channels-last, Linear 4x, GELU, Linear, layer scale), downsampling (LayerNorm2d, 2x2 conv); stochastic
    depth off."""
    nn = T.nn

    class LayerNorm2d(nn.LayerNorm):
        def forward(self, x):
            x = x.permute(0, 2, 3, 1)
            x = nn.functional.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
            return x.permute(0, 3, 1, 2)

    class CNBlock(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.block = nn.Sequential(nn.Conv2d(d, d, 7, padding=3, groups=d), Permute((0, 2, 3, 1)),
                                       nn.LayerNorm(d, eps=1e-6), nn.Linear(d, 4 * d), nn.GELU(),
                                       nn.Linear(4 * d, d), Permute((0, 3, 1, 2)))
            self.layer_scale = nn.Parameter(T.ones(d, 1, 1) * layer_scale)

        def forward(self, x):
            return self.layer_scale * self.block(x) + x

    class Permute(nn.Module):
        def __init__(self, dims):
            super().__init__()
            self.dims = dims

        def forward(self, x):
            return T.permute(x, self.dims)

    class ConvNeXt(nn.Module):
        def __init__(self):
            super().__init__()
            layers = [nn.Sequential(nn.Conv2d(3, dims[0], 4, 4), LayerNorm2d(dims[0], eps=1e-6))]
            for i, (d, n) in enumerate(zip(dims, depths)):
                layers.append(nn.Sequential(*[CNBlock(d) for _ in range(n)]))
                if i + 1 < len(dims):
                    layers.append(nn.Sequential(LayerNorm2d(d, eps=1e-6), nn.Conv2d(d, dims[i + 1], 2, 2)))
            self.features = nn.Sequential(*layers)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.classifier = nn.Sequential(LayerNorm2d(dims[-1], eps=1e-6), nn.Flatten(1),
                                            nn.Linear(dims[-1], classes))

        def forward(self, x):
            return self.classifier(self.avgpool(self.features(x)))

    model = ConvNeXt()
    for m in model.modules():  # torchvision: trunc_normal(std 0.02) for convs and linears, zero biases
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.trunc_normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)
    return model
