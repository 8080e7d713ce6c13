// The allowlist: node type → component. Nothing outside it renders.
import type { Registry } from "../runtime/hooks";
import { Badge } from "./badge";
import { Banner } from "./banner";
import { Button } from "./button";
import { Card } from "./card";
import { ChoiceList } from "./choice-list";
import { Countdown } from "./countdown";
import { Dialog } from "./dialog";
import { Divider } from "./divider";
import { EmptyState } from "./empty-state";
import { Footer } from "./footer";
import { Form } from "./form";
import { FormError } from "./form-error";
import { Header } from "./header";
import { Icon } from "./icon";
import { ImageChoice } from "./image-choice";
import { Image } from "./image";
import { LevelMeter } from "./level-meter";
import { NameList } from "./name-list";
import { Link } from "./link";
import { List } from "./list";
import { ListItem } from "./list-item";
import { Loader } from "./loader";
import { PostList } from "./post-list";
import { Preview } from "./preview";
import { Rating } from "./rating";
import { RichText } from "./rich-text";
import { Row } from "./row";
import { Screen } from "./screen";
import { Split } from "./split";
import { Stack } from "./stack";
import { StatTile } from "./stat-tile";
import { Steps } from "./steps";
import { Chart } from "./chart";
import { FileInput } from "./file-input";
import { Text } from "./text";
import { Textarea } from "./textarea";
import { TextInput } from "./text-input";

export const registry = {
  screen: Screen,
  header: Header,
  footer: Footer,
  stack: Stack,
  row: Row,
  text: Text,
  rich_text: RichText,
  image: Image,
  icon: Icon,
  button: Button,
  link: Link,
  card: Card,
  list: List,
  list_item: ListItem,
  divider: Divider,
  badge: Badge,
  stat_tile: StatTile,
  level_meter: LevelMeter,
  chart: Chart,
  name_list: NameList,
  file_input: FileInput,
  split: Split,
  preview: Preview,
  image_choice: ImageChoice,
  post_list: PostList,
  countdown: Countdown,
  loader: Loader,
  banner: Banner,
  form: Form,
  form_error: FormError,
  text_input: TextInput,
  textarea: Textarea,
  choice_list: ChoiceList,
  rating: Rating,
  dialog: Dialog,
  steps: Steps,
  empty_state: EmptyState,
} satisfies Registry;
